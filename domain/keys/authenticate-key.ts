import { AgentRestrictions } from '../../schemas/ontology-actions.ts';
import { keyRole, licenseRole } from '../companies/index.ts';
import type { DbOrTrx, KeyRevocationReason } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { equalHashes, sha256Hex } from '../security/index.ts';
import { isWellFormedKey } from './key-format.ts';
import { cacheFamily, readThrough } from './principal-cache.ts';

const LAST_USED_RESOLUTION_MS = 60_000;

interface CachedKey {
  principal: Extract<Principal, { kind: 'key' }>;
  /** When this process last wrote (or read) the key's last_used_at, in ms. */
  lastUsedAt: number;
}

/** Valid keys by key hash. */
const KEYS = cacheFamily<CachedKey>('key');

const unauthorized = (message: string) => new DomainError('unauthorized', message);

// Tells the owner why a key they still hold stopped working, and what to do.
const REVOKED: Record<KeyRevocationReason, string> = {
  owner: 'The key was revoked by its owner.',
  operator: 'The key was revoked by an operator.',
  password_change: 'The key was revoked when the account’s password was changed.',
  password_reset: 'The key was revoked when an operator reset the account’s password.',
  account_disabled: 'The key was revoked when the account was disabled.',
  license_removed: 'The key was revoked when the account’s license in its company was removed.',
};

/**
 * The caller behind a key, with its role lowered live to the license the account holds today.
 * From the principal cache when it holds the key (emptied in every process by any change to
 * keys, accounts, licenses or companies), else from one query; only valid keys are cached.
 */
export async function authenticateKey(
  deps: Pick<DomainDeps, 'db' | 'principals' | 'keyUses'>,
  plaintext: string,
): Promise<Extract<Principal, { kind: 'key' }>> {
  const hashHex = sha256Hex(plaintext);
  const cached = (await readThrough(deps, KEYS, hashHex, () => {
    // Checked before the query (a hit was checked when it was found): a mistyped key costs no database work.
    if (!isWellFormedKey(plaintext)) throw unauthorized('The key is malformed (check for a copy-paste error).');
    return lookUp(deps.db, Buffer.from(hashHex, 'hex'));
  }))!;
  const now = Date.now();
  if (now - cached.lastUsedAt > LAST_USED_RESOLUTION_MS) {
    cached.lastUsedAt = now;
    deps.keyUses.note(cached.principal.key.id, new Date(now));
  }
  return cached.principal;
}

async function lookUp(db: DbOrTrx, hash: Buffer): Promise<CachedKey> {
  const row = await db
    .selectFrom('developer_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .innerJoin('companies as c', 'c.id', 'k.company_id')
    .leftJoin('licenses as l', (j) => j.onRef('l.account_id', '=', 'k.account_id').onRef('l.company_id', '=', 'k.company_id'))
    .select([
      'k.id',
      'k.hash',
      'k.display_prefix',
      'k.role',
      'k.revoked_at',
      'k.revoked_reason',
      'k.last_used_at',
      'k.agent_id',
      'k.restrictions',
      'a.id as account_id',
      'a.username',
      'a.email',
      'a.status',
      'a.platform_staff',
      'c.id as company_id',
      'c.cell_id',
      'c.name as company_name',
      'l.role as license_role',
      'l.admin as license_admin',
    ])
    .where('k.hash', '=', hash)
    .executeTakeFirst();
  if (!row || !equalHashes(row.hash, hash)) throw unauthorized('The key is unknown.');
  if (row.revoked_at) throw unauthorized(`${REVOKED[row.revoked_reason ?? 'owner']} Log in again (svc login) for a new key.`);
  if (row.status !== 'active') throw unauthorized('The account of this key is not active.');
  if (!row.license_role) throw unauthorized('The account of this key no longer belongs to its company.');

  return {
    principal: {
      kind: 'key',
      account: { id: row.account_id, username: row.username, email: row.email, platformStaff: row.platform_staff },
      company: { id: row.company_id, cellId: row.cell_id, name: row.company_name },
      role: keyRole(row.role, licenseRole({ role: row.license_role, admin: row.license_admin ?? false }, row.platform_staff)),
      key: { id: row.id, displayPrefix: row.display_prefix },
      ...(row.agent_id === null ? {} : { agent: { id: row.agent_id, restrictions: AgentRestrictions.parse(row.restrictions) } }),
    },
    lastUsedAt: row.last_used_at?.getTime() ?? 0,
  };
}
