import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // An object type's security policies (issue 29, Deliver 5): a sub-resource of the type, kept
  // beside its versioned definition, so tightening access never makes a new definition version.
  // `policy` is schemas/object-security.ts ObjectSecurityPolicy, checked before it is written.
  await db.schema
    .createTable('object_type_security')
    .addColumn('object_type_id', 'text', (c) => c.primaryKey().references('object_types.id').onDelete('cascade'))
    .addColumn('policy', 'jsonb', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('object_type_security').execute();
}
