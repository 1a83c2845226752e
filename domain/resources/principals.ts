import { CELL_ID_PATTERN } from '../../schemas/manifest/index.ts';
import { problem } from '../../schemas/problems.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { assertGroupOf } from '../groups/index.ts';
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
 * Checks that a principal names something that exists: an account, a company (whole or its
 * developers), or a group of the resource's own company (a group of another company is not
 * found: its id is never confirmed across companies). Legacy departments are refused: this service
 * keeps no department membership, and a grant that matched nobody would only mislead; a group
 * holds the same people.
 */
export async function assertPrincipalExists(db: DbOrTrx, principal: string, resourceCompanyId: string | null): Promise<PrincipalKind> {
  const kind = principalKind(principal);
  const missing = () => new DomainError('principal_not_found', `No principal ${principal}.`, { details: { principal } });
  if (!kind) throw missing();
  if (kind === 'department') {
    throw new DomainError(
      'invalid_payload',
      'Departments are a legacy principal this service does not keep members for; create a group with its people and grant the group.',
      { details: { principal, problems: [problem('principal', 'invalid_value', 'departments are not supported; name a group (grp_…)')] } },
    );
  }
  if (kind === 'group') await assertGroupOf(db, principal, resourceCompanyId);
  if (kind === 'account') {
    const account = await db.selectFrom('accounts').select('id').where('id', '=', principal).executeTakeFirst();
    if (!account) throw missing();
  }
  if (kind === 'organization' || kind === 'developers') {
    const cellId = principal.split(':')[0]!;
    const company =
      CELL_ID_PATTERN.test(cellId) && (await db.selectFrom('companies').select('id').where('cell_id', '=', cellId).executeTakeFirst());
    if (!company) throw missing();
  }
  return kind;
}

/**
 * The principals a signed-in caller answers to: the account, everyone, internet, each company it
 * holds a license in and, as a developer, that company's developer group, and the groups it is a
 * live member of (judged when the visitor was read).
 */
export function principalsOf(visitor: Visitor): string[] {
  return [
    visitor.accountId,
    'everyone',
    'internet',
    ...visitor.groups,
    ...visitor.licenses.flatMap((l) => [l.cellId, ...(l.role === 'developer' ? [`${l.cellId}:developers`] : [])]),
  ];
}
