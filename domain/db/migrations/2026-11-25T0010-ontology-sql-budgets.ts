import type { Kysely } from 'kysely';
import { sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

/** Catalog views that show every schema's tables, indexes, sequences, functions or sessions. */
const STATISTICS_VIEWS = [
  'pg_stat_activity',
  'pg_locks',
  'pg_stat_database',
  ...['all', 'user', 'sys'].flatMap((scope) => [
    `pg_stat_${scope}_tables`,
    `pg_stat_xact_${scope}_tables`,
    `pg_statio_${scope}_tables`,
    `pg_stat_${scope}_indexes`,
    `pg_statio_${scope}_indexes`,
    `pg_statio_${scope}_sequences`,
  ]),
  'pg_stat_user_functions',
  'pg_stat_xact_user_functions',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  // Ontology SQL roles become one per company, credential (kind and account) and set of types
  // (domain/ontology/sql/sql-roles.ts): the roles shared by every credential with the same types
  // go. Their grants are revoked by us, their grantor (DROP OWNED BY would need their privileges),
  // and a role that still cannot be dropped loses LOGIN; the next query makes its new role.
  await sql`
    DO $$
    DECLARE r record;
    BEGIN
      FOR r IN SELECT s.role_name, o.schema_name FROM ontology_sql_roles s JOIN ontologies o ON o.company_id = s.company_id
               WHERE EXISTS (SELECT 1 FROM pg_roles WHERE rolname = s.role_name) LOOP
        BEGIN
          EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM %I', r.schema_name, r.role_name);
          EXECUTE format('REVOKE ALL ON SCHEMA %I FROM %I', r.schema_name, r.role_name);
          EXECUTE format('DROP ROLE %I', r.role_name);
        EXCEPTION WHEN insufficient_privilege OR dependent_objects_still_exist THEN
          EXECUTE format('ALTER ROLE %I NOLOGIN', r.role_name);
        END;
      END LOOP;
    END$$`.execute(db);
  await sql`DELETE FROM ontology_sql_roles`.execute(db);
  await db.schema
    .alterTable('ontology_sql_roles')
    /** key, agent, session or ticket. */
    .addColumn('credential_kind', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .execute();

  // The statistics views are readable by PUBLIC, so every SQL role could read other companies'
  // row counts and write counters, and the text of queries of its own role. Only a superuser may
  // change their grants: then they go to pg_read_all_stats (monitoring roles keep them) instead of
  // PUBLIC. Elsewhere ontology SQL's parser refuses every catalog relation anyway (sql-allowlist.ts).
  await onStatisticsViews(
    db,
    `EXECUTE format('REVOKE SELECT ON pg_catalog.%I FROM PUBLIC', v);
     EXECUTE format('GRANT SELECT ON pg_catalog.%I TO pg_read_all_stats', v);`,
  );
}

/** Runs `statements` (with `v`, a view's name) for each statistics view that exists, as a superuser only. */
async function onStatisticsViews(db: Kysely<unknown>, statements: string): Promise<void> {
  await sql`
    DO $$
    DECLARE v text;
    BEGIN
      IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RETURN;
      END IF;
      FOREACH v IN ARRAY ${sql.raw(`ARRAY[${STATISTICS_VIEWS.map((v) => `'${v}'`).join(', ')}]`)} LOOP
        IF to_regclass('pg_catalog.' || v) IS NOT NULL THEN
          ${sql.raw(statements)}
        END IF;
      END LOOP;
    END$$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await onStatisticsViews(db, `EXECUTE format('GRANT SELECT ON pg_catalog.%I TO PUBLIC', v);`);
  await db.schema.alterTable('ontology_sql_roles').dropColumn('account_id').dropColumn('credential_kind').execute();
}
