import { createHash } from 'node:crypto';
import type { DbOrTrx } from '../db/database.ts';
import { equalHashes } from '../security/random.ts';

/** Stores each distinct content once; returns nothing new for bytes already known. */
export async function putBlobs(db: DbOrTrx, files: readonly { bytes: Buffer; sha256: string }[]): Promise<void> {
  const unique = new Map(files.map((f) => [f.sha256, f.bytes]));
  for (const [sha, bytes] of unique) {
    await db
      .insertInto('blobs')
      .values({ sha256: Buffer.from(sha, 'hex'), size: bytes.length, content: bytes })
      .onConflict((oc) => oc.column('sha256').doNothing())
      .execute();
  }
}

export class CorruptBlobError extends Error {
  override name = 'CorruptBlobError';
}

/** The bytes of a blob, checked against their address so corruption never reaches a visitor. */
export async function readBlob(db: DbOrTrx, sha256: Buffer): Promise<Buffer> {
  const row = await db.selectFrom('blobs').select('content').where('sha256', '=', sha256).executeTakeFirstOrThrow();
  const actual = createHash('sha256').update(row.content).digest();
  if (!equalHashes(actual, sha256)) throw new CorruptBlobError(`blob ${sha256.toString('hex')} does not match its content`);
  return row.content;
}
