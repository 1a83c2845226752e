import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // A company share names its company: the app's own (as before) or another one, whose members
  // then open the production app as editors. Existing company shares are with their app's company.
  await db.schema
    .alterTable('app_shares')
    .addColumn('company_id', 'text', (c) => c.references('companies.id').onDelete('cascade'))
    .execute();
  await sql`UPDATE app_shares s SET company_id = a.company_id FROM apps a WHERE a.id = s.app_id AND s.audience = 'company'`.execute(db);
  // Company shares of official apps could not be made (no company): none exist to violate this.
  await sql`ALTER TABLE app_shares ADD CONSTRAINT app_shares_company_shape CHECK ((audience = 'company') = (company_id IS NOT NULL))`.execute(
    db,
  );
  // Repeating a company share changes the live one: at most one per app and company.
  await sql`DROP INDEX app_shares_company`.execute(db);
  await sql`CREATE UNIQUE INDEX app_shares_company ON app_shares (app_id, company_id) WHERE audience = 'company' AND revoked_at IS NULL`.execute(
    db,
  );
  await db.schema.createIndex('app_shares_company_id').on('app_shares').column('company_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX app_shares_company_id`.execute(db);
  await sql`DROP INDEX app_shares_company`.execute(db);
  await sql`DELETE FROM app_shares s USING apps a WHERE a.id = s.app_id AND s.audience = 'company' AND s.company_id <> a.company_id`.execute(
    db,
  );
  await sql`CREATE UNIQUE INDEX app_shares_company ON app_shares (app_id) WHERE audience = 'company' AND revoked_at IS NULL`.execute(db);
  await sql`ALTER TABLE app_shares DROP CONSTRAINT app_shares_company_shape`.execute(db);
  await db.schema.alterTable('app_shares').dropColumn('company_id').execute();
}
