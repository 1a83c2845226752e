import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // A license a member import added, as the importing company sees it until the person next signs
  // in (or accepts an invitation): pending, under the email and name the company gave. So neither
  // the import nor the member list tells a company whether that person already had an account
  // elsewhere on the platform, its username, name or state (issue 28 finding 8). Ends with the license.
  await db.schema
    .createTable('member_invitations')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('member_invitations_pkey', ['account_id', 'company_id'])
    .addForeignKeyConstraint('member_invitations_license', ['account_id', 'company_id'], 'licenses', ['account_id', 'company_id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  // Links issued before this migration were returned to the importing company's developer, who
  // could set the password of the account (issue 27 finding 6): none may work any more. Their
  // people get a new one by email when a developer re-sends (POST …/members/{accountId}/invitation).
  await sql`DELETE FROM account_invitations`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('member_invitations').execute();
}
