import { sql } from 'kysely';
import type { DbOrTrx } from '../db/index.ts';

export async function findAccountByLogin(db: DbOrTrx, login: string) {
  const normalized = login.trim().toLowerCase();
  return db
    .selectFrom('accounts')
    .selectAll()
    .where((eb) => eb.or([eb(sql`lower(username)`, '=', normalized), eb(sql`lower(email)`, '=', normalized)]))
    .executeTakeFirst();
}

/** An account with that username or email (case-insensitive), for uniqueness checks. */
export async function findAccountClash(db: DbOrTrx, username: string, email: string) {
  return db
    .selectFrom('accounts')
    .select(['username', 'email'])
    .where((eb) => eb.or([eb(sql`lower(username)`, '=', username.toLowerCase()), eb(sql`lower(email)`, '=', email.toLowerCase())]))
    .executeTakeFirst();
}

/** Ends every web session of an account (disabled, or its password changed or reset). */
export async function endSessionsOf(db: DbOrTrx, accountId: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('account_id', '=', accountId).execute();
}

/**
 * The person has used the account (signed in, or accepted an invitation): the companies whose
 * import invited them stop seeing them as pending (domain/members/list-members.ts).
 */
export async function endMemberInvitations(db: DbOrTrx, accountId: string): Promise<void> {
  await db.deleteFrom('member_invitations').where('account_id', '=', accountId).execute();
}

/** A company's custom attributes of an account (set-user-attributes.ts), by name. */
export async function customAttributesOf(db: DbOrTrx, accountId: string, companyId: string): Promise<Record<string, string[]>> {
  const rows = await db
    .selectFrom('account_attributes')
    .select(['name', 'values'])
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .orderBy('name')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.name, r.values]));
}
