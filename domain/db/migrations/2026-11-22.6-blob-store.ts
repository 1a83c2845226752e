import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

// Version files may live in S3 (SVC_BLOB_STORE), where the blobs table holds no row for them:
// the reference from version_files to blobs cannot be a foreign key any more. The upload
// writes blobs before the version row commits instead (domain/apps/upload-version.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE version_files DROP CONSTRAINT version_files_blob_sha256_fkey`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE version_files ADD CONSTRAINT version_files_blob_sha256_fkey FOREIGN KEY (blob_sha256) REFERENCES blobs(sha256)`.execute(
    db,
  );
}
