import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('service_instance')
    .addColumn('singleton', 'smallint', (c) => c.primaryKey().defaultTo(1).check(sql`singleton = 1`))
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('service_instance').execute();
}
