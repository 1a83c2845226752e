import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Metering: one row per app, meter and period (`2026-11` for monthly meters, `2026-11-30` for
  // daily ones). The period is part of the key, so an increment lands in the period of its own
  // time and nothing is lost or moved at a boundary; increments are single-statement upserts.
  await db.schema
    .createTable('usage_counters')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('meter', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount >= 0`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('usage_counters_pk', ['app_id', 'meter', 'period'])
    .execute();
  // Billing reads a month's counters of every app.
  await db.schema.createIndex('usage_counters_period').on('usage_counters').columns(['period', 'app_id']).execute();

  // One row per UTC month whose reset ran (the monthly Temporal Schedule): when, and which apps
  // had used up their compute minutes the month before and may start triggers again.
  await db.schema
    .createTable('usage_resets')
    .addColumn('period', 'text', (c) => c.primaryKey())
    .addColumn('ran_at', 'timestamptz', (c) => c.notNull())
    .addColumn('reenabled_app_ids', 'jsonb', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_resets').execute();
  await db.schema.dropTable('usage_counters').execute();
}
