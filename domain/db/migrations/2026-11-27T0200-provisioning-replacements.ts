import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // A dead instance is replaced under a new client-token generation (0: the token of the first
  // instance, as before); the ids of the instances it replaced stay on record.
  await sql`ALTER TABLE company_provisioning
    ADD COLUMN instance_generation integer NOT NULL DEFAULT 0,
    ADD COLUMN replaced_instances jsonb NOT NULL DEFAULT '[]'::jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE company_provisioning DROP COLUMN instance_generation, DROP COLUMN replaced_instances`.execute(db);
}
