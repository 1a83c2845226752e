import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // A company's cameras (spec: manifest `cameras`, G "Vision cameras"): an HTTP snapshot or MJPEG
  // address, and credentials sealed with the service's secret key (AES-256-GCM, the key's id kept
  // beside them so keys can rotate). `credential_rejected_at`: when the camera last refused the
  // credential; no attempt is made for 10 minutes after it.
  await db.schema
    .createTable('cameras')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind IN ('snapshot', 'mjpeg')`))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('max_viewers', 'integer', (c) => c.notNull().check(sql`max_viewers BETWEEN 1 AND 16`))
    .addColumn('credential_sealed', 'bytea')
    .addColumn('credential_key_id', 'text')
    .addColumn('credential_rejected_at', 'timestamptz')
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('cameras_company_name', ['company_id', 'name'])
    .addCheckConstraint('cameras_credential_key', sql`(credential_sealed IS NULL) = (credential_key_id IS NULL)`)
    .execute();
}
