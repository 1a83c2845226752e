import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The app log (spec "App log event"): events sent by apps (usage, feedback, error) and records the
  // service writes itself (usage/open, action/*, share/*), one store. Release records stay in
  // `release_records` (their own writer) and are read into the log by a union.
  await db.schema
    .createTable('app_log_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`date_trunc('milliseconds', clock_timestamp())`))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind IN ('usage', 'feedback', 'error', 'action', 'share')`))
    /** `app`: sent by the app (usage, feedback, error); `service`: written by the service (usage/open, action/*, share/*). */
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source IN ('app', 'service')`))
    /** What follows the kind: `open`, a track name, `create`, `data.import`, an error class, a feedback topic. */
    .addColumn('name', 'text', (c) => c.notNull())
    /** The visitor (events, opens) or the actor (actions, shares). No foreign key: the log outlives accounts. */
    .addColumn('account_id', 'text')
    .addColumn('version_id', 'text')
    .addColumn('channel', 'text')
    .addColumn('data', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('status', 'text', (c) => c.check(sql`status IN ('open', 'planned', 'done', 'dismissed')`))
    .addColumn('status_by', 'text')
    .addColumn('status_at', 'timestamptz')
    .addCheckConstraint('app_log_events_status', sql`(kind = 'feedback') = (status IS NOT NULL)`)
    .execute();
  // Listing and summary: one app, newest first; the INCLUDE columns let the summary's counts run
  // as index-only scans.
  await sql`CREATE INDEX app_log_events_app_at ON app_log_events (app_id, at DESC, id DESC) INCLUDE (kind, name, account_id)`.execute(db);
  await sql`CREATE INDEX app_log_events_open_feedback ON app_log_events (app_id, at DESC) WHERE status = 'open'`.execute(db);
  // Retention deletes only expiring kinds, oldest first, in small batches (row locks only, so
  // ingestion, which only inserts, never waits on it).
  await sql`CREATE INDEX app_log_events_expiring ON app_log_events (at) WHERE kind IN ('usage', 'error')`.execute(db);

  // Roll-ups kept by the writer in the same transaction, so the summary reads days and visitors,
  // not events: records per app, UTC day, kind and name; and each visitor's last day. A summary
  // window always ends today, so its distinct visitors are those whose last day is in it.
  await db.schema
    .createTable('app_log_daily')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_log_daily_pkey', ['app_id', 'day', 'kind', 'name'])
    .execute();
  await db.schema
    .createTable('app_log_visitors')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('last_day', 'date', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_log_visitors_pkey', ['app_id', 'account_id'])
    .execute();
  await db.schema.createIndex('app_log_visitors_last_day').on('app_log_visitors').columns(['app_id', 'last_day']).execute();

  // Captured errors per class, app, visitor and UTC day: the first ones are stored, the rest counted.
  await db.schema
    .createTable('app_log_error_counts')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('class', 'text', (c) => c.notNull())
    .addColumn('seen', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_log_error_counts_pkey', ['app_id', 'day', 'class', 'account_id'])
    .execute();

  // Existing usage/open and share records move into the one store.
  await sql`
    INSERT INTO app_log_events (id, app_id, at, kind, source, name, account_id, version_id, channel, data)
    SELECT id, app_id, at, 'usage', 'service', 'open', account_id, version_id, channel,
           jsonb_build_object('viaShare', via_share)
    FROM app_opens`.execute(db);
  await sql`
    INSERT INTO app_log_events (id, app_id, at, kind, source, name, account_id, data)
    SELECT id, app_id, at, 'share', 'service', substr(name, 7), actor_account_id,
           jsonb_build_object('shareId', share_id, 'audience', audience, 'object', object, 'role', role,
                              'expiresAt', to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    FROM app_share_records`.execute(db);
  await sql`
    INSERT INTO app_log_daily (app_id, day, kind, name, count)
    SELECT app_id, (at AT TIME ZONE 'UTC')::date, kind, name, count(*) FROM app_log_events GROUP BY 1, 2, 3, 4`.execute(db);
  await sql`
    INSERT INTO app_log_visitors (app_id, account_id, last_day)
    SELECT app_id, account_id, max((at AT TIME ZONE 'UTC')::date) FROM app_log_events WHERE kind IN ('usage', 'feedback', 'error') AND account_id IS NOT NULL GROUP BY 1, 2`.execute(
    db,
  );
  await db.schema.dropTable('app_opens').execute();
  await db.schema.dropTable('app_share_records').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('app_log_error_counts').execute();
  await db.schema.dropTable('app_log_visitors').execute();
  await db.schema.dropTable('app_log_daily').execute();
  await db.schema.dropTable('app_log_events').execute();
}
