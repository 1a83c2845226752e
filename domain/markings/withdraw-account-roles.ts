import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { roleOnWire } from './repository.ts';

/**
 * An account that leaves a company (its license removed) loses its roles on the company's markings,
 * so it is cleared for nothing of the company's any more. A marking it is the last ADMINISTER of
 * would be left unmanaged: the removal is refused (409 last_admin_protected) before anything changes.
 * Each withdrawn role is recorded (marking_role_removed); every process's cache forgets it (NOTIFY trigger).
 */
export async function withdrawAccountRoles(
  db: DbOrTrx,
  input: { accountId: string; companyId: string; actorId: string; ip?: string | undefined },
): Promise<void> {
  const held = await db
    .selectFrom('marking_role_assignments as a')
    .innerJoin('markings as m', 'm.id', 'a.marking_id')
    .innerJoin('marking_categories as k', 'k.id', 'm.category_id')
    .select(['a.marking_id', 'a.role'])
    .select((eb) =>
      eb
        .selectFrom('marking_role_assignments as o')
        .select((o) => o.fn.countAll<number>().as('n'))
        .whereRef('o.marking_id', '=', 'a.marking_id')
        .where('o.role', '=', 'administer')
        .where('o.principal', '!=', input.accountId)
        .as('otherAdmins'),
    )
    .where('a.principal', '=', input.accountId)
    .where('k.company_id', '=', input.companyId)
    .execute();
  const sole = held.filter((h) => h.role === 'administer' && Number(h.otherAdmins) === 0).map((h) => h.marking_id);
  if (sole.length > 0) {
    throw new DomainError(
      'last_admin_protected',
      'This account is the last ADMINISTER of a marking of the company: give the marking another first.',
      {
        details: { accountId: input.accountId, markingIds: sole },
      },
    );
  }
  for (const h of held) {
    await db
      .deleteFrom('marking_role_assignments')
      .where('marking_id', '=', h.marking_id)
      .where('principal', '=', input.accountId)
      .where('role', '=', h.role)
      .execute();
    await recordSecurityEvent(db, {
      kind: 'marking_role_removed',
      accountId: input.accountId,
      actorId: input.actorId,
      ip: input.ip,
      details: {
        markingId: h.marking_id,
        principalType: 'USER',
        principalId: input.accountId,
        role: roleOnWire(h.role),
        reason: 'license_removed',
      },
    });
  }
}
