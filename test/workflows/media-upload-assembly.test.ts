import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_UPLOAD_PURGE, mediaUploadAssemblyWorkflowId } from '../../workflows/contract.ts';
import { bearer } from '../support/identity.ts';
import { type MediaObjectService, startMediaObjectService } from '../support/media.ts';
import type { TestService } from '../support/service.ts';

// The whole path of an upload's completion: the API makes the session COMPLETING and writes the
// intent with its commit, the relay starts the session's assembly workflow (labelled as svc's
// workflows are), the worker in the service reads the parts from s3rver, hashes the item, records it as a composite of
// its parts and attaches it to the object. The client polls by completing again. And the purge schedule,
// triggered, purges an abandoned session.

let media: MediaObjectService;
let svc: TestService;
let dana: string;
let UPLOADS: string;

beforeAll(async () => {
  media = await startMediaObjectService({ role: 'all', prefix: 'media-assembly', type: 'vision.Photo', media: 'image', id: 'p1' });
  ({ svc, dana, uploads: UPLOADS } = media);
}, 120_000);
afterAll(() => media?.close());

describe('media upload assembly on Temporal', () => {
  it('assembles a completed session in its own labelled workflow and attaches the item to the object', async () => {
    // Two parts, sent out of order.
    const first = Buffer.alloc(16 * 1024 * 1024 + 3, 7);
    const second = Buffer.from('the end');
    const whole = Buffer.concat([first, second]);
    const opened = await svc.call('POST', UPLOADS, {
      body: { sizeBytes: whole.length, mimeType: 'video/mp4', primaryKey: 'p1' },
      headers: bearer(dana),
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const id = opened.body.data.uploadId as string;
    // 16 MiB + 3 is over a part's limit: the first part is cut at 16 MiB.
    const parts = [first.subarray(0, 16 * 1024 * 1024), Buffer.concat([first.subarray(16 * 1024 * 1024), second])];
    for (const [n, bytes] of [
      [2, parts[1]!],
      [1, parts[0]!],
    ] as const) {
      const put = await svc.call('PUT', `${UPLOADS}/${id}/parts/${n}`, { rawBody: bytes, headers: bearer(dana) });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    const complete = () => svc.call('POST', `${UPLOADS}/${id}/complete`, { headers: bearer(dana) });
    expect((await complete()).body.data.state).toBe('COMPLETING');

    const handle = svc.temporal!.client.workflow.getHandle(mediaUploadAssemblyWorkflowId(id));
    await expect
      .poll(
        () =>
          handle.describe().then(
            (d) => d.status.name,
            () => 'not started',
          ),
        { timeout: 30_000 },
      )
      .not.toBe('not started');
    expect(await handle.result()).toBe('completed');
    const described = await handle.describe();
    expect(described.memo).toEqual({ kind: 'media-upload', company: 'cell-acme', companyName: 'Acme' });
    const labels = Object.fromEntries(
      described.typedSearchAttributes
        .getAll()
        .filter((p) => p.key.name.startsWith('Svc'))
        .map((p) => [p.key.name, p.value]),
    );
    expect(labels).toEqual({ SvcKind: 'media-upload', SvcCellId: 'cell-acme' });

    const done = (await complete()).body.data;
    expect([done.state, done.failure]).toEqual(['COMPLETED', null]);
    const object = await svc.call('GET', '/api/v1/ontologies/cell-acme/objects/vision.Photo/p1', { headers: bearer(dana) });
    expect(object.body.data.image).toEqual(done.mediaReference);
    const { mediaSetRid, mediaItemRid } = done.mediaReference.reference.mediaSetViewItem;
    const sha256 = createHash('sha256').update(whole).digest('hex');
    const info = await svc.call('GET', `/api/v1/mediasets/${mediaSetRid}/items/${mediaItemRid}`, { headers: bearer(dana) });
    expect(info.body.data).toMatchObject({ sizeBytes: whole.length, sha256 });
    // The item is not written again: it is recorded as the composite of its two parts.
    expect(media.s3.puts).not.toContain(`media-assembly/sha256/${sha256}`);
    const composite = await svc.database.db
      .selectFrom('media_composite_parts')
      .select('part_sha256')
      .where('item_sha256', '=', Buffer.from(sha256, 'hex'))
      .orderBy('position')
      .execute();
    expect(composite.map((p) => p.part_sha256.toString('hex'))).toEqual(parts.map((p) => createHash('sha256').update(p).digest('hex')));
    const url = `${svc.url}/api/v1/mediasets/${mediaSetRid}/items/${mediaItemRid}/content`;
    // A range across the two parts, exact.
    const at = 16 * 1024 * 1024;
    const ranged = await fetch(url, { headers: { ...bearer(dana), range: `bytes=${at - 2}-${at + 1}` } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes ${at - 2}-${at + 1}/${whole.length}`);
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(whole.subarray(at - 2, at + 2));
    const content = await fetch(url, { headers: bearer(dana) });
    expect(
      createHash('sha256')
        .update(Buffer.from(await content.arrayBuffer()))
        .digest('hex'),
    ).toBe(sha256);
  });

  it('registers the hourly purge schedule, whose run purges a session left OPEN for a day', async () => {
    const opened = await svc.call('POST', UPLOADS, { body: { sizeBytes: 4, mimeType: 'text/plain' }, headers: bearer(dana) });
    const id = opened.body.data.uploadId as string;
    expect((await svc.call('PUT', `${UPLOADS}/${id}/parts/1`, { rawBody: Buffer.from('idle'), headers: bearer(dana) })).status).toBe(200);
    await svc.database.db
      .updateTable('media_uploads')
      .set({ updated_at: new Date(Date.now() - 25 * 3600_000) })
      .where('id', '=', id)
      .execute();
    const schedule = svc.temporal!.client.schedule.getHandle(MEDIA_UPLOAD_PURGE.scheduleId);
    const described = await schedule.describe();
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'mediaUploadPurge' });
    expect(described.spec.calendars?.[0]).toMatchObject({ minute: [{ start: 20, end: 20, step: 1 }] });
    await schedule.trigger();
    await expect
      .poll(() => svc.database.db.selectFrom('media_uploads').select('state').where('id', '=', id).executeTakeFirstOrThrow(), {
        timeout: 30_000,
      })
      .toEqual({ state: 'PURGED' });
    expect(await svc.database.db.selectFrom('media_upload_parts').select('part_number').where('upload_id', '=', id).execute()).toEqual([]);
  });
});
