import type { Context } from 'koa';
import type { AppDeps } from '../deps.ts';
import { ApiError } from '../http/api-error.ts';
import { isWellFormedKey } from '../keys/key-format.ts';
import { equalHashes, sha256 } from '../security/random.ts';
import { readSessionCookie } from '../sessions/cookie.ts';
import { type AuthRequirement, type Principal, roleFromLicense } from './principal.ts';

const LAST_USED_RESOLUTION_MS = 60_000;

const unauthorized = (message: string) => new ApiError('unauthorized', 401, undefined, message, { 'WWW-Authenticate': 'Bearer' });

async function fromKey(deps: AppDeps, plaintext: string): Promise<Principal> {
  // Checked before any lookup: a mistyped key costs no database work.
  if (!isWellFormedKey(plaintext)) throw unauthorized('The key is malformed (check for a copy-paste error).');
  const hash = sha256(plaintext);
  const row = await deps.db
    .selectFrom('developer_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .innerJoin('companies as c', 'c.id', 'k.company_id')
    .leftJoin('licenses as l', (j) => j.onRef('l.account_id', '=', 'k.account_id').onRef('l.company_id', '=', 'k.company_id'))
    .select([
      'k.id', 'k.hash', 'k.display_prefix', 'k.role', 'k.revoked_at', 'k.last_used_at',
      'a.id as account_id', 'a.username', 'a.email', 'a.status', 'a.platform_staff',
      'c.id as company_id', 'c.cell_id', 'c.name as company_name',
      'l.role as license_role', 'l.admin as license_admin',
    ])
    .where('k.hash', '=', hash)
    .executeTakeFirst();
  if (!row || !equalHashes(row.hash, hash) || row.revoked_at) throw unauthorized('The key is unknown or revoked.');
  if (row.status !== 'active') throw unauthorized('The account of this key is not active.');
  if (!row.license_role) throw unauthorized('The account of this key no longer belongs to its company.');

  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    await deps.db.updateTable('developer_keys').set({ last_used_at: new Date() }).where('id', '=', row.id).execute();
  }
  const current = roleFromLicense({ role: row.license_role, admin: row.license_admin ?? false }, row.platform_staff);
  return {
    kind: 'key',
    account: { id: row.account_id, username: row.username, email: row.email, platformStaff: row.platform_staff },
    company: { id: row.company_id, cellId: row.cell_id, name: row.company_name },
    // A key never acts above the role it was issued with, nor above the account's role today.
    role: row.role === 'developer' && current === 'developer' ? 'developer' : 'member',
    key: { id: row.id, displayPrefix: row.display_prefix },
  };
}

/** The session behind a cookie value, or undefined when it is unknown, expired or its account inactive. */
export async function findSession(deps: AppDeps, cookie: string): Promise<Principal | undefined> {
  const hash = sha256(cookie);
  const row = await deps.db
    .selectFrom('web_sessions as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.hash', 's.expires_at', 'a.id', 'a.username', 'a.email', 'a.status', 'a.platform_staff'])
    .where('s.hash', '=', hash)
    .executeTakeFirst();
  if (!row || !equalHashes(row.hash, hash) || row.expires_at <= new Date() || row.status !== 'active') return undefined;
  return {
    kind: 'session',
    account: { id: row.id, username: row.username, email: row.email, platformStaff: row.platform_staff },
    sessionHash: hash,
  };
}

/**
 * Sessions may write only from our own pages: Sec-Fetch-Site when the browser
 * sends it, else an Origin equal to ours. `Origin: null` is never trusted.
 */
export function assertSameOrigin(ctx: Context, baseUrl: string): void {
  const site = ctx.get('sec-fetch-site');
  const origin = ctx.get('origin');
  const ok = site ? site === 'same-origin' : origin !== '' && origin !== 'null' && origin === new URL(baseUrl).origin;
  if (!ok) throw new ApiError('forbidden', 403, undefined, 'Cross-site request refused: session writes must come from this site.');
}

export async function authenticate(ctx: Context, deps: AppDeps, req: Exclude<AuthRequirement, 'none'>, write: boolean): Promise<Principal> {
  const header = ctx.get('authorization');
  let principal: Principal | undefined;
  if (header && req.accepts.includes('key')) {
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) throw unauthorized('Use Authorization: Bearer svc-dk-<key>.');
    principal = await fromKey(deps, m[1]!);
  } else if (req.accepts.includes('session')) {
    const baseUrl = deps.addresses().baseUrl;
    const cookie = readSessionCookie(ctx, baseUrl);
    principal = cookie ? await findSession(deps, cookie) : undefined;
    if (!principal) {
      if (!req.accepts.includes('key')) throw new ApiError('invalid_session', 401, undefined, 'Sign in on the web first.');
      throw unauthorized('A developer key (Authorization: Bearer svc-dk-...) or a web session is required.');
    }
    if (write) assertSameOrigin(ctx, baseUrl);
  } else {
    throw unauthorized('A developer key is required: Authorization: Bearer svc-dk-<key>.');
  }

  if (req.operator && !principal.account.platformStaff) {
    throw new ApiError('forbidden', 403, undefined, 'Only platform staff may use this interface.');
  }
  if (req.role === 'developer' && principal.kind === 'key' && principal.role !== 'developer') {
    throw new ApiError(
      'forbidden',
      403,
      { role: principal.role, required: 'developer' },
      `This is a developer-only interface and this key acts as a member of ${principal.company.cellId}. ` +
        'Members may call published apps and see themselves; ask a company admin for a developer license, then log in again.',
    );
  }
  return principal;
}
