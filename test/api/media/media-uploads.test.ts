import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaActivities } from '../../../activities/media.ts';
import type { AssemblyOutcome } from '../../../domain/media/index.ts';
import { MEDIA_LIMITS } from '../../../schemas/media.ts';
import { bearer } from '../../support/identity.ts';
import { type MediaObjectService, startMediaObjectService } from '../../support/media.ts';
import type { TestService } from '../../support/service.ts';

// Upload sessions into a media property, with the S3 content store (s3rver on loopback) so parts
// of the full 16 MiB fit: parts in any order, re-sent, refused one byte over, completion into the
// property's media set and the object's property, and purging. The API role runs no worker:
// completion leaves the session COMPLETING with its workflow's intent in the outbox, and the test
// runs the workflow's activities itself, in Temporal's activity environment (heartbeats and all);
// test/workflows/media-upload-assembly.test.ts runs the workflow.

let media: MediaObjectService;
let svc: TestService;
let dana: string;
let UPLOADS: string;

beforeAll(async () => {
  media = await startMediaObjectService({
    prefix: 'media-uploads',
    type: 'vision.Photo',
    media: 'image',
    id: 'p1',
    extra: { caption: { dataType: { type: 'string' } } },
  });
  ({ svc, dana, uploads: UPLOADS } = media);
});
afterAll(() => media?.close());

const open = async (body: object) => {
  const res = await svc.call('POST', UPLOADS, { body, headers: bearer(dana) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.uploadId as string;
};
const putPart = (id: string, n: number, bytes: Buffer) =>
  svc.call('PUT', `${UPLOADS}/${id}/parts/${n}`, { rawBody: bytes, headers: bearer(dana) });
const complete = (id: string) => svc.call('POST', `${UPLOADS}/${id}/complete`, { headers: bearer(dana) });
/** What the session's assembly workflow does: assemble, then attach when assembled. */
const assemble = async (uploadId: string) => {
  const activities = createMediaActivities({ db: svc.deps.db, blobs: svc.deps.blobs });
  const env = new MockActivityEnvironment();
  const assembled = (await env.run(activities.assembleMediaUpload, { uploadId })) as AssemblyOutcome;
  if (assembled.outcome === 'assembled') await env.run(activities.attachMediaUpload, { uploadId, ...assembled });
  return assembled;
};
/** Completes and runs the assembly; answers the session as a later completion (the client's poll) sees it. */
const completeAndAssemble = async (id: string) => {
  const completing = await complete(id);
  expect([completing.status, completing.body.data?.state], JSON.stringify(completing.body)).toEqual([200, 'COMPLETING']);
  await assemble(id);
  return complete(id);
};
const patterned = (size: number, seed: number) => {
  const bytes = Buffer.alloc(size, seed);
  for (let i = 0; i + 4 <= size; i += 4096) bytes.writeUInt32BE(i ^ seed, i);
  return bytes;
};

describe('media upload sessions', () => {
  it('takes parts in any order, re-sent, each up to 16 MiB exactly, and completes into the set and the object', async () => {
    const first = patterned(MEDIA_LIMITS.uploadPartBytes, 1);
    const second = Buffer.from('tail');
    const id = await open({ sizeBytes: first.length + second.length, mimeType: 'image/png', primaryKey: 'p1' });

    const wrong = await putPart(id, 2, Buffer.from('oops'));
    expect(wrong.status, JSON.stringify(wrong.body)).toBe(200);
    // The same number with other bytes replaces the part while OPEN; the same bytes again change nothing.
    expect((await putPart(id, 2, second)).body.data).toEqual({
      partNumber: 2,
      sizeBytes: 4,
      sha256: createHash('sha256').update(second).digest('hex'),
    });
    expect((await putPart(id, 2, second)).status).toBe(200);
    const over = await putPart(id, 1, Buffer.alloc(MEDIA_LIMITS.uploadPartBytes + 1));
    expect([over.status, over.body.error.code]).toEqual([413, 'payload_too_large']);
    const one = await putPart(id, 1, first);
    expect([one.status, one.body.data?.sizeBytes]).toEqual([200, MEDIA_LIMITS.uploadPartBytes]);

    // A dry run changes nothing and asks for no workflow.
    const dry = await svc.call('POST', `${UPLOADS}/${id}/complete`, { headers: { ...bearer(dana), 'x-svc-dry-run': 'true' } });
    expect([dry.status, dry.body.data?.plan?.state]).toEqual([202, 'COMPLETING']);
    const intents = () => svc.database.db.selectFrom('outbox').select(['topic', 'key']).where('key', '=', id).execute();
    expect(await intents()).toEqual([]);
    const completing = await complete(id);
    expect([completing.status, completing.body.data?.state, completing.body.data?.mediaReference]).toEqual([200, 'COMPLETING', null]);
    expect(await intents()).toEqual([{ topic: 'media-upload.completing', key: id }]);
    // Polling answers COMPLETING, and asks for no second workflow.
    expect((await complete(id)).body.data.state).toBe('COMPLETING');
    expect(await intents()).toHaveLength(1);
    expect(await assemble(id)).toMatchObject({ outcome: 'assembled', size: first.length + second.length });
    const done = await complete(id);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const whole = Buffer.concat([first, second]);
    expect(done.body.data).toMatchObject({
      state: 'COMPLETED',
      sizeBytes: whole.length,
      mimeType: 'image/png',
      primaryKey: 'p1',
      parts: [],
      failure: null,
    });
    const reference = done.body.data.mediaReference;
    expect(reference).toMatchObject({ mimeType: 'image/png', reference: { type: 'mediaSetViewItem' } });
    const { mediaSetRid, mediaItemRid } = reference.reference.mediaSetViewItem;
    expect(mediaSetRid).toBe(done.body.data.mediaSetRid);

    // The object holds the reference; the item's bytes are the parts in number order, not in arrival order.
    const object = await svc.call('GET', '/api/v1/ontologies/cell-acme/objects/vision.Photo/p1', { headers: bearer(dana) });
    expect(object.body.data.image, JSON.stringify(object.body)).toEqual(reference);
    const info = await svc.call('GET', `/api/v1/mediasets/${mediaSetRid}/items/${mediaItemRid}`, { headers: bearer(dana) });
    expect(info.body.data).toMatchObject({
      path: `uploads/${id}`,
      sizeBytes: whole.length,
      sha256: createHash('sha256').update(whole).digest('hex'),
    });
    const content = await fetch(`${svc.url}/api/v1/mediasets/${mediaSetRid}/items/${mediaItemRid}/content`, { headers: bearer(dana) });
    expect(Buffer.from(await content.arrayBuffer()).equals(whole)).toBe(true);

    // Completing again (a retry after a lost answer) answers the same; no more parts, no purge; the
    // next upload of the property uses the same set.
    expect((await complete(id)).body.data).toEqual(done.body.data);
    expect((await putPart(id, 3, second)).body.error.code).toBe('conflict');
    expect((await svc.call('DELETE', `${UPLOADS}/${id}`, { headers: bearer(dana) })).body.error.code).toBe('conflict');
    const next = await svc.call('POST', UPLOADS, { body: { sizeBytes: 1, mimeType: 'image/png' }, headers: bearer(dana) });
    expect(next.body.data.mediaSetRid).toBe(mediaSetRid);
  });

  it('takes a part sent without a declared length, hashed as it arrives, and refuses one going over mid-body', async () => {
    const bytes = patterned(200_000, 7);
    const id = await open({ sizeBytes: bytes.length, mimeType: 'image/png' });
    // Chunked (no Content-Length): the body's size is known only at its end.
    const chunked = (chunks: Buffer[]) =>
      fetch(`${svc.url}${UPLOADS}/${id}/parts/1`, {
        method: 'PUT',
        headers: bearer(dana),
        body: new ReadableStream({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk);
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
    const sent = await chunked([bytes.subarray(0, 70_000), bytes.subarray(70_000, 140_000), bytes.subarray(140_000)]);
    expect([sent.status, ((await sent.json()) as any).data]).toEqual([
      200,
      { partNumber: 1, sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
    ]);
    // One byte more than the declared item, in a last chunk: refused, and the part stored before stays.
    const over = await chunked([bytes, Buffer.from('!')]);
    expect([over.status, ((await over.json()) as any).error.code]).toEqual([413, 'payload_too_large']);
    expect((await complete(id)).body.data?.state).toBe('COMPLETING');
    expect(await assemble(id)).toMatchObject({
      outcome: 'assembled',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
    });
  });

  it('refuses to complete parts that miss a number or do not add up to the declared size', async () => {
    const id = await open({ sizeBytes: 10, mimeType: 'text/plain' });
    expect((await putPart(id, 2, Buffer.from('abcdef'))).status).toBe(200);
    const gap = await complete(id);
    expect([gap.status, gap.body.error.code, gap.body.error.details.missingParts]).toEqual([409, 'media_upload_incomplete', [1]]);
    expect((await putPart(id, 1, Buffer.from('xyz'))).status).toBe(200);
    const short = await complete(id);
    expect([short.status, short.body.error.code, short.body.error.details.receivedBytes]).toEqual([409, 'media_upload_incomplete', 9]);
    // Still OPEN: the missing byte may come.
    expect((await putPart(id, 1, Buffer.from('wxyz'))).status).toBe(200);
    expect((await completeAndAssemble(id)).body.data.state).toBe('COMPLETED');
  });

  it('purges a session: its parts are dropped, it is PURGED, and takes no more parts', async () => {
    const id = await open({ sizeBytes: 8, mimeType: 'text/plain' });
    const empty = await putPart(id, 1, Buffer.alloc(0));
    expect([empty.status, empty.body.error.code]).toEqual([400, 'invalid_payload']);
    expect((await putPart(id, 1, Buffer.from('abcd'))).status).toBe(200);
    const purged = await svc.call('DELETE', `${UPLOADS}/${id}`, { headers: bearer(dana) });
    expect([purged.status, purged.body.data.state, purged.body.data.parts]).toEqual([200, 'PURGED', []]);
    expect(await svc.database.db.selectFrom('media_upload_parts').select('part_number').where('upload_id', '=', id).execute()).toEqual([]);
    expect((await svc.call('DELETE', `${UPLOADS}/${id}`, { headers: bearer(dana) })).body.data.state).toBe('PURGED');
    expect((await putPart(id, 2, Buffer.from('efgh'))).body.error.code).toBe('conflict');
    expect((await complete(id)).body.error.code).toBe('conflict');
  });

  it('purges sessions left OPEN for a day (the schedule’s activity), and no other', async () => {
    const idle = await open({ sizeBytes: 8, mimeType: 'text/plain' });
    expect((await putPart(idle, 1, Buffer.from('idle'))).status).toBe(200);
    const fresh = await open({ sizeBytes: 8, mimeType: 'text/plain' });
    const completing = await open({ sizeBytes: 4, mimeType: 'text/plain' });
    await putPart(completing, 1, Buffer.from('done'));
    expect((await complete(completing)).body.data.state).toBe('COMPLETING');
    const day = MEDIA_LIMITS.abandonedUploadHours * 3600_000;
    const lastTouched = new Date(Date.now() - day - 60_000);
    await svc.database.db.updateTable('media_uploads').set({ updated_at: lastTouched }).where('id', 'in', [idle, completing]).execute();
    const purge = createMediaActivities({ db: svc.deps.db, blobs: svc.deps.blobs }).purgeAbandonedMediaUploads;
    const now = new Date().toISOString();
    // One batch of one first: the rest waits for the next batch, as the workflow loops.
    expect(await new MockActivityEnvironment().run(purge, { now, batchSize: 1 })).toBe(1);
    expect(await new MockActivityEnvironment().run(purge, { now, batchSize: 10 })).toBe(0);
    const states = await svc.database.db
      .selectFrom('media_uploads')
      .select(['id', 'state'])
      .where('id', 'in', [idle, fresh, completing])
      .execute();
    expect(Object.fromEntries(states.map((u) => [u.id, u.state]))).toEqual({
      [idle]: 'PURGED',
      [fresh]: 'OPEN',
      [completing]: 'COMPLETING',
    });
    expect(await svc.database.db.selectFrom('media_upload_parts').select('part_number').where('upload_id', '=', idle).execute()).toEqual(
      [],
    );
    expect((await putPart(idle, 2, Buffer.from('late'))).body.error.code).toBe('conflict');
  });

  it('refuses properties that are not media, unknown sessions and sizes beyond the limit', async () => {
    const caption = await svc.call('POST', UPLOADS.replace('/image/', '/caption/'), {
      body: { sizeBytes: 1, mimeType: 'text/plain' },
      headers: bearer(dana),
    });
    expect([caption.status, caption.body.error.code]).toEqual([404, 'property_not_found']);
    const badKey = await svc.call('POST', UPLOADS, { body: { sizeBytes: 1, mimeType: 'image/png', primaryKey: 7 }, headers: bearer(dana) });
    expect([badKey.status, badKey.body.error.details.problems[0].path]).toEqual([400, 'primaryKey']);
    const unknown = await complete('00000000-0000-4000-8000-000000000000');
    // Up to 50 GB (the S3 store is configured here); one byte more is refused.
    await open({ sizeBytes: MEDIA_LIMITS.uploadItemBytes, mimeType: 'video/mp4' });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'media_upload_not_found']);
    const huge = await svc.call('POST', UPLOADS, {
      body: { sizeBytes: MEDIA_LIMITS.uploadItemBytes + 1, mimeType: 'video/mp4' },
      headers: bearer(dana),
    });
    expect([huge.status, huge.body.error.code]).toEqual([400, 'invalid_payload']);
  });

  it('ends a session FAILED when a part’s bytes are gone or the parts do not add up, and attaches nothing', async () => {
    const partsOf = async (id: string) => {
      const rows = await svc.database.db
        .selectFrom('media_upload_parts')
        .selectAll()
        .where('upload_id', '=', id)
        .orderBy('part_number')
        .execute();
      return rows.map((r) => ({ ...r, sha256: r.sha256.toString('hex') }));
    };
    // A part whose bytes left the store (an operator's lifecycle rule, say).
    const gone = await open({ sizeBytes: 8, mimeType: 'text/plain', primaryKey: 'p1' });
    await putPart(gone, 1, Buffer.from('gone-1-x'));
    const [part] = await partsOf(gone);
    await fs.rm(await media.s3.objectFile(`media-uploads/sha256/${part!.sha256}`));
    expect((await complete(gone)).body.data.state).toBe('COMPLETING');
    expect(await assemble(gone)).toEqual({ outcome: 'failed', code: 'media_upload_part_missing' });
    const missing = await complete(gone);
    expect([missing.status, missing.body.data.state, missing.body.data.failure?.code, missing.body.data.parts]).toEqual([
      200,
      'FAILED',
      'media_upload_part_missing',
      [],
    ]);
    expect(missing.body.data.failure.message).toContain('part 1');
    // Parts whose recorded sizes are not what the store holds (they still add up to the declared size).
    const skewed = await open({ sizeBytes: 9, mimeType: 'text/plain', primaryKey: 'p1' });
    await putPart(skewed, 1, Buffer.from('skew-1'));
    await putPart(skewed, 2, Buffer.from('abc'));
    expect((await complete(skewed)).body.data.state).toBe('COMPLETING');
    const image = async () =>
      (await svc.call('GET', '/api/v1/ontologies/cell-acme/objects/vision.Photo/p1', { headers: bearer(dana) })).body.data.image;
    const before = await image();
    await svc.database.db
      .updateTable('media_upload_parts')
      .set({ size: 7 })
      .where('upload_id', '=', skewed)
      .where('part_number', '=', 1)
      .execute();
    await svc.database.db
      .updateTable('media_upload_parts')
      .set({ size: 2 })
      .where('upload_id', '=', skewed)
      .where('part_number', '=', 2)
      .execute();
    expect(await assemble(skewed)).toEqual({ outcome: 'failed', code: 'media_upload_size_mismatch' });
    const mismatch = (await complete(skewed)).body.data;
    expect([mismatch.state, mismatch.failure?.code, mismatch.mediaReference]).toEqual(['FAILED', 'media_upload_size_mismatch', null]);
    // The object kept what it had; a FAILED session is not deleted, and its workflow run again does nothing.
    expect(await image()).toEqual(before);
    expect((await svc.call('DELETE', `${UPLOADS}/${skewed}`, { headers: bearer(dana) })).body.error.code).toBe('conflict');
    expect(await assemble(skewed)).toEqual({ outcome: 'skipped' });
  });

  it('holds a restricted agent key to 64 MiB per item, declared at open and sent in parts', async () => {
    const issued = await svc.call('POST', '/api/v1/developer/agent-keys/cell-acme', {
      body: {
        agentId: 'uploader',
        restrictions: { operations: ['api:use-ontologies-read', 'api:use-ontologies-write'], objectTypes: ['vision.Photo'] },
      },
      headers: bearer(dana),
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const agent = bearer(issued.body.data.key);
    const cap = MEDIA_LIMITS.agentUploadItemBytes;
    const over = await svc.call('POST', UPLOADS, { body: { sizeBytes: cap + 1, mimeType: 'video/mp4' }, headers: agent });
    expect([over.status, over.body.error?.code, over.body.error?.details.limitBytes]).toEqual([413, 'payload_too_large', cap]);
    const opened = await svc.call('POST', UPLOADS, { body: { sizeBytes: cap, mimeType: 'video/mp4' }, headers: agent });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const id = opened.body.data.uploadId as string;
    const part = patterned(MEDIA_LIMITS.uploadPartBytes, 3);
    for (let n = 1; n * part.length <= cap; n++) {
      const put = await svc.call('PUT', `${UPLOADS}/${id}/parts/${n}`, { rawBody: part, headers: agent });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    // The cap is reached exactly: one byte more, under any part number, is refused.
    const extra = await svc.call('PUT', `${UPLOADS}/${id}/parts/${cap / part.length + 1}`, { rawBody: Buffer.from('x'), headers: agent });
    expect([extra.status, extra.body.error?.code, extra.body.error?.details.limitBytes]).toEqual([413, 'payload_too_large', cap]);
    // Only into the types it lists: a key listing another type reads nothing of this ontology (404).
    const other = await svc.call('POST', '/api/v1/developer/agent-keys/cell-acme', {
      body: {
        agentId: 'elsewhere',
        restrictions: { operations: ['api:use-ontologies-read', 'api:use-ontologies-write'], objectTypes: ['vision.Clip'] },
      },
      headers: bearer(dana),
    });
    const refused = await svc.call('POST', UPLOADS, {
      body: { sizeBytes: 1, mimeType: 'image/png' },
      headers: bearer(other.body.data.key),
    });
    expect([refused.status, refused.body.error?.code]).toEqual([404, 'ontology_not_found']);
    // The cap is the agent key's: a developer opens a larger item.
    await open({ sizeBytes: cap + 1, mimeType: 'video/mp4' });
  });
});
