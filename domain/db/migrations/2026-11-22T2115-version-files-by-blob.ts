import type { Kysely } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

// "Which of these contents do this company's versions already hold?" (the CLI's send-only-what-
// changed upload) looks version files up by content hash.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('version_files_blob').on('version_files').column('blob_sha256').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('version_files_blob').execute();
}
