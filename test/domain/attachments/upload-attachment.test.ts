import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedBlobStore, postgresBlobBackend } from '../../../domain/apps/index.ts';
import { acceptAttachmentBytes } from '../../../domain/attachments/index.ts';
import { ATTACHMENT_LIMITS } from '../../../schemas/attachments.ts';
import { MEDIA_LIMITS } from '../../../schemas/media.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { insertCompanyWithDeveloper, type OntologyFixture } from '../../support/ontology.ts';

// What an upload decides before it reads a byte, with the database content store only (no S3):
// a declared size past the database's share or past 200 MB is refused without reading the body.

let database: TestDatabase;
let acme: OntologyFixture;

beforeAll(async () => {
  database = await createTestDatabase();
  acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
});
afterAll(() => database.drop());

const accept = (declaredBytes: number, bytes: Buffer) => {
  let reads = 0;
  const body = {
    declaredBytes,
    read: async () => {
      reads++;
      return bytes;
    },
  };
  const blobs = cachedBlobStore(postgresBlobBackend(database.db), 0);
  return { reads: () => reads, result: acceptAttachmentBytes({ blobs }, acme.developer, { filename: 'a.bin' }, body, false) };
};

describe('acceptAttachmentBytes', () => {
  it('keeps small attachments in PostgreSQL and says media_upload_destination_not_configured above its share, unread', async () => {
    const small = accept(MEDIA_LIMITS.databaseItemBytes, Buffer.alloc(MEDIA_LIMITS.databaseItemBytes, 1));
    const stored = await small.result;
    expect(stored).toMatchObject({ companyId: acme.companyId, size: MEDIA_LIMITS.databaseItemBytes });
    expect(await database.db.selectFrom('blobs').select('size').where('sha256', '=', Buffer.from(stored.sha256, 'hex')).execute()).toEqual([
      { size: MEDIA_LIMITS.databaseItemBytes },
    ]);

    const large = accept(MEDIA_LIMITS.databaseItemBytes + 1, Buffer.alloc(0));
    await expect(large.result).rejects.toMatchObject({
      code: 'media_upload_destination_not_configured',
      details: { limitBytes: MEDIA_LIMITS.databaseItemBytes, sizeBytes: MEDIA_LIMITS.databaseItemBytes + 1 },
    });
    expect(large.reads()).toBe(0);
    const huge = accept(ATTACHMENT_LIMITS.bytes + 1, Buffer.alloc(0));
    await expect(huge.result).rejects.toMatchObject({ code: 'attachment_size_exceeded_limit' });
    expect(huge.reads()).toBe(0);
  });
});
