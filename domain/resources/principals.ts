import { CELL_ID_PATTERN } from '../../schemas/manifest/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Visitor } from '../policy/index.ts';

/** Whom a grant names (spec Generic resource access). */
export type PrincipalKind = 'account' | 'group' | 'everyone' | 'internet' | 'organization' | 'developers' | 'department';

const SHAPES: [PrincipalKind, RegExp][] = [
  ['account', /^acc_[0-9A-Za-z]{10,40}$/],
  ['group', /^grp_[0-9A-Za-z]{10,40}$/],
  ['everyone', /^everyone$/],
  ['internet', /^internet$/],
  ['developers', /^(cell-[a-z0-9-]+):developers$/],
  ['department', /^(cell-[a-z0-9-]+):dept:[A-Za-z0-9_-]{1,64}$/],
  ['organization', /^(cell-[a-z0-9-]+)$/],
];

export function principalKind(principal: string): PrincipalKind | undefined {
  return SHAPES.find(([, pattern]) => pattern.test(principal))?.[0];
}

/**
 * Checks that a principal names something that exists: an account, a company (whole, its
 * developers, or a legacy department of it). Groups are not kept by this service yet, so no group
 * id is found.
 */
export async function assertPrincipalExists(db: DbOrTrx, principal: string): Promise<PrincipalKind> {
  const kind = principalKind(principal);
  const missing = () => new DomainError('principal_not_found', `No principal ${principal}.`, { details: { principal } });
  if (!kind || kind === 'group') throw missing();
  if (kind === 'account') {
    const account = await db.selectFrom('accounts').select('id').where('id', '=', principal).executeTakeFirst();
    if (!account) throw missing();
  }
  if (kind === 'organization' || kind === 'developers' || kind === 'department') {
    const cellId = principal.split(':')[0]!;
    const company =
      CELL_ID_PATTERN.test(cellId) && (await db.selectFrom('companies').select('id').where('cell_id', '=', cellId).executeTakeFirst());
    if (!company) throw missing();
  }
  return kind;
}

/**
 * The principals a signed-in caller answers to: the account, everyone, internet, each company it
 * holds a license in and, as a developer, that company's developer group. (Departments and groups
 * have no members kept here yet.)
 */
export function principalsOf(visitor: Visitor): string[] {
  return [
    visitor.accountId,
    'everyone',
    'internet',
    ...visitor.licenses.flatMap((l) => [l.cellId, ...(l.role === 'developer' ? [`${l.cellId}:developers`] : [])]),
  ];
}
