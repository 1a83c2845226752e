import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Evolve (spec G): proposals to change an app's declared tokens and slots, and the improvements
  // applied from them. `account_id` is the person of a personal one (null: company-wide).
  await db.schema
    .createTable('evolve_proposals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope IN ('company', 'personal')`))
    .addColumn('account_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open').check(sql`status IN ('open', 'applied', 'rejected')`))
    .addColumn('author_kind', 'text', (c) => c.notNull().check(sql`author_kind IN ('developer', 'agent', 'member', 'suggest')`))
    .addColumn('author_account_id', 'text', (c) => c.notNull())
    .addColumn('author_agent', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('rationale', 'text')
    .addColumn('changes', 'jsonb', (c) => c.notNull())
    .addColumn('evidence', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'timestamptz')
    .addCheckConstraint('evolve_proposals_scope', sql`(scope = 'personal') = (account_id IS NOT NULL)`)
    .execute();
  await sql`CREATE INDEX evolve_proposals_app ON evolve_proposals (app_id, created_at DESC, id DESC)`.execute(db);

  await db.schema
    .createTable('evolve_improvements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('proposal_id', 'text', (c) => c.notNull().unique().references('evolve_proposals.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope IN ('company', 'personal')`))
    .addColumn('account_id', 'text')
    .addColumn('changes', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addCheckConstraint('evolve_improvements_scope', sql`(scope = 'personal') = (account_id IS NOT NULL)`)
    .execute();
  await sql`CREATE INDEX evolve_improvements_app ON evolve_improvements (app_id, created_at, id)`.execute(db);
  // Every process caches each app's improvements for its opens (domain/evolve/overlay-cache.ts):
  // a change empties the principal cache everywhere, and the overlay cache with it.
  await sql`CREATE TRIGGER evolve_improvements_notify_principals
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON evolve_improvements
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('evolve_improvements').execute();
  await db.schema.dropTable('evolve_proposals').execute();
}
