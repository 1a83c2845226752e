import { sql } from 'kysely';
import type { DbOrTrx } from '../db/index.ts';

/** The company's seats: its limit (null: none) and the licenses it holds. Locks the company row for the import. */
export async function lockSeats(db: DbOrTrx, companyId: string) {
  const company = await db
    .selectFrom('companies')
    .select(['name', 'cell_id', 'seat_limit'])
    .where('id', '=', companyId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return { limit: company.seat_limit, used: await seatsUsed(db, companyId), company: { name: company.name, cellId: company.cell_id } };
}

export async function seatsUsed(db: DbOrTrx, companyId: string): Promise<number> {
  const row = await db
    .selectFrom('licenses')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** Accounts by email (case-insensitive) or by id. */
export async function accountsFor(db: DbOrTrx, emails: string[], ids: string[]) {
  if (emails.length === 0 && ids.length === 0) return [];
  return db
    .selectFrom('accounts')
    .select(['id', 'email', 'username', 'status', 'platform_staff'])
    .where((eb) =>
      eb.or([
        ...(emails.length > 0 ? [eb(sql`lower(email)`, 'in', emails)] : []),
        ...(ids.length > 0 ? [eb('id', 'in', ids)] : []),
        // A username equal to a new person's email would clash with the username the import gives them.
        ...(emails.length > 0 ? [eb(sql`lower(username)`, 'in', emails)] : []),
      ]),
    )
    .execute();
}

/**
 * The company's licenses held by these accounts or carrying these external ids; `invited`: the
 * company sees the member as pending (an import added the license; the person has not signed in since).
 */
export async function licensesFor(db: DbOrTrx, companyId: string, accountIds: string[], externalIds: string[]) {
  if (accountIds.length === 0 && externalIds.length === 0) return [];
  return db
    .selectFrom('licenses as l')
    .leftJoin('member_invitations as i', (j) => j.onRef('i.account_id', '=', 'l.account_id').onRef('i.company_id', '=', 'l.company_id'))
    .select(['l.account_id', 'l.role', 'l.admin', 'l.external_id', sql<boolean>`i.account_id IS NOT NULL`.as('invited')])
    .where('l.company_id', '=', companyId)
    .where((eb) =>
      eb.or([
        ...(accountIds.length > 0 ? [eb('l.account_id', 'in', accountIds)] : []),
        ...(externalIds.length > 0 ? [eb('l.external_id', 'in', externalIds)] : []),
      ]),
    )
    .execute();
}

/** Which of these accounts held a license in the company that was removed: people it knew. */
export async function formerMembers(db: DbOrTrx, cellId: string, accountIds: string[]): Promise<Set<string>> {
  if (accountIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('security_events')
    .select('account_id')
    .distinct()
    .where('kind', '=', 'license_removed')
    .where('account_id', 'in', accountIds)
    .where(sql<string>`details->>'cellId'`, '=', cellId)
    .execute();
  return new Set(rows.map((r) => r.account_id!));
}
