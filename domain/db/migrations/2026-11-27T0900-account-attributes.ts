import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Custom user attributes (issue 29, Deliver 5): set by a company's admins and developers on its
  // people, read only by that company's security policies (beside the derived `svc:` attributes),
  // so one company's attributes never decide what another company's data shows. They go with the
  // account or the company.
  await db.schema
    .createTable('account_attributes')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('values', sql`text[]`, (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('account_attributes_pk', ['account_id', 'company_id', 'name'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('account_attributes').execute();
}
