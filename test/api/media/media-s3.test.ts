import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_LIMITS } from '../../../schemas/media.ts';
import { bearer, passwordKey, seedCompanies } from '../../support/identity.ts';
import { startS3Server, type TestS3, useS3Credentials } from '../../support/s3.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Media items with the S3 content store (s3rver on loopback): items above the database's share
// go to the bucket only, once per content, and are read back by range.

let s3: TestS3;
let svc: TestService;
let dana: string;

beforeAll(async () => {
  s3 = await startS3Server();
  useS3Credentials();
  svc = await startTestService({ env: s3.env('media') });
  await seedCompanies(svc);
  dana = await passwordKey(svc, 'dana');
});
afterAll(async () => {
  await svc?.close();
  await s3?.close();
});

describe('media items in the S3 store', () => {
  it('keeps a large item in the bucket only, once by hash, refuses one byte over the direct-put limit, and serves ranges of it', async () => {
    const set = await svc.call('POST', '/api/v1/mediasets', { body: { name: 'Videos', schema: 'video' }, headers: bearer(dana) });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
    const rid = set.body.data.rid;
    // Just above the database's share: it can only be in the bucket.
    const bytes = Buffer.alloc(MEDIA_LIMITS.databaseItemBytes + 1);
    for (let i = 0; i + 4 <= bytes.length; i += 4096) bytes.writeUInt32BE(i, i);
    const sha = createHash('sha256').update(bytes).digest('hex');
    const put = (path: string, body: Buffer) =>
      svc.call('POST', `/api/v1/mediasets/${rid}/items?mediaItemPath=${path}`, {
        rawBody: body,
        headers: { ...bearer(dana), 'content-type': 'video/mp4' },
      });

    const first = await put('clips/a.mp4', bytes);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.data).toMatchObject({ sizeBytes: MEDIA_LIMITS.databaseItemBytes + 1, sha256: sha });
    expect((await put('clips/b.mp4', bytes)).status).toBe(201);
    // One object for both paths, and no row in the database's blob table.
    expect(s3.puts.filter((key) => key.endsWith(sha))).toHaveLength(1);
    expect(await svc.database.db.selectFrom('blobs').select('sha256').where('sha256', '=', Buffer.from(sha, 'hex')).execute()).toEqual([]);
    const over = await put('clips/c.mp4', Buffer.alloc(MEDIA_LIMITS.putItemBytes + 1));
    expect([over.status, over.body.error.code]).toEqual([413, 'payload_too_large']);

    const url = `${svc.url}/api/v1/mediasets/${rid}/items/${first.body.data.mediaItemRid}/content`;
    const tail = await fetch(url, { headers: { ...bearer(dana), range: `bytes=${bytes.length - 4096}-` } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes ${bytes.length - 4096}-${bytes.length - 1}/${bytes.length}`);
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 4096));
    expect(tail.headers.get('content-disposition')).toBe("inline; filename*=UTF-8''a.mp4");
  });
});
