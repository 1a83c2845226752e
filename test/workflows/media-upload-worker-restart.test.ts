import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BlobStore, cachedBlobStore, postgresBlobLedger } from '../../domain/apps/index.ts';
import { systemClock } from '../../domain/deps.ts';
import { acceptUploadPart, completeMediaUpload, createMediaUpload, putMediaUploadPart, readItemContent } from '../../domain/media/index.ts';
import { editObjects, getObject } from '../../domain/ontology/index.ts';
import { MEDIA_LIMITS } from '../../schemas/media.ts';
import { mediaUploadAssemblyWorkflowId, TASK_QUEUE } from '../../workflows/contract.ts';
import { bodyOf } from '../support/media.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture } from '../support/ontology.ts';
import { startBlobBackend, type TestS3 } from '../support/s3.ts';
import { startWorkflowTestEnv, type WorkflowTestEnv } from '../support/workflow-env.ts';

// Issue 30, item 6: a session whose assembly is interrupted by a worker restart completes after
// it. Two parts (16 MiB and a tail) on s3rver: the first worker's activity has read and hashed the
// first part and is reading the second when the worker stops. Its attempt ends there; a new worker
// retries the assembly from the start and the session ends COMPLETED with the item's SHA-256,
// recorded once as a composite of its two parts (no byte written again), attached to the object once.

let started: WorkflowTestEnv;
let s3: TestS3;
let acme: OntologyFixture;
let store: BlobStore;
const TARGET = { ontology: 'cell-acme', objectType: 'vision.Photo', property: 'image' };

beforeAll(async () => {
  s3 = (await startBlobBackend('s3'))!;
  started = await startWorkflowTestEnv();
  const db = started.database.db;
  store = cachedBlobStore(s3.backend('restart'), 0, postgresBlobLedger(db));
  acme = await insertCompanyWithDeveloper(db, 'cell-acme');
  await define(db, acme, {
    types: [
      {
        apiName: 'vision.Photo',
        primaryKey: 'id',
        properties: { id: { dataType: { type: 'string' } }, image: { dataType: { type: 'mediaReference' } } },
      },
    ],
  });
  await db.transaction().execute((trx) =>
    editObjects({ db: trx, clock: systemClock }, acme.developer, 'cell-acme', {
      edits: [{ type: 'create', objectType: 'vision.Photo', properties: { id: 'p1' } }],
    }),
  );
}, 120_000);
afterAll(async () => {
  await started?.stop();
  await s3?.close();
});

/**
 * The store as the first worker sees it: the read of `held` waits until the activity is cancelled,
 * as a worker going away cancels its activities, and fails with it.
 */
function interruptedAt(held: string) {
  let entered!: () => void;
  const interrupted = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const blobs: BlobStore = {
    ...store,
    async *stream(sha256) {
      if (sha256 === held) {
        entered();
        await Context.current().cancelled;
      }
      yield* store.stream(sha256);
    },
  };
  return { blobs, interrupted };
}

describe('media upload assembly across a worker restart', () => {
  it('completes after the worker is replaced mid-assembly: right SHA-256, the item attached once', async () => {
    const db = started.database.db;
    const deps = { db, clock: systemClock, blobs: store };
    const parts = [Buffer.alloc(MEDIA_LIMITS.uploadPartBytes, 5), Buffer.from('and the tail')];
    const whole = Buffer.concat(parts);
    const sha256 = createHash('sha256').update(whole).digest('hex');
    const upload = await createMediaUpload(deps, acme.developer, TARGET, {
      sizeBytes: whole.length,
      mimeType: 'video/mp4',
      primaryKey: 'p1',
    });
    const partSha = [];
    for (const [i, bytes] of parts.entries()) {
      const part = { uploadId: upload.uploadId, partNumber: i + 1 };
      const content = await acceptUploadPart(deps, acme.developer, TARGET, part, bodyOf(bytes), false);
      await putMediaUploadPart(deps, acme.developer, TARGET, part, content);
      partSha.push(content.sha256);
    }
    expect(
      (
        await db
          .transaction()
          .execute((trx) => completeMediaUpload({ db: trx, clock: systemClock }, acme.developer, TARGET, upload.uploadId))
      ).state,
    ).toBe('COMPLETING');

    const first = interruptedAt(partSha[1]!);
    await started.replaceWorker({ blobs: first.blobs });
    // Started as the outbox relay starts it.
    const handle = await started.env.client.workflow.start('mediaUploadAssembly', {
      taskQueue: TASK_QUEUE,
      workflowId: mediaUploadAssemblyWorkflowId(upload.uploadId),
      args: [{ uploadId: upload.uploadId }],
    });
    await first.interrupted;
    // Nothing was recorded of the item when the worker stopped.
    expect(await db.selectFrom('media_composites').select('sha256').execute()).toEqual([]);
    await started.replaceWorker({ blobs: store });
    expect(await handle.result()).toBe('completed');

    // The assembly ran twice: the interrupted attempt and the new worker's.
    const history = await handle.fetchHistory();
    const assembly = history
      .events!.filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    expect(assembly[0]).toBe(2);
    const session = await db
      .selectFrom('media_uploads')
      .select(['state', 'media_item_id'])
      .where('id', '=', upload.uploadId)
      .executeTakeFirstOrThrow();
    expect(session.state).toBe('COMPLETED');
    const items = await db
      .selectFrom('media_items')
      .select(['id', 'sha256', 'size'])
      .where('path', '=', `uploads/${upload.uploadId}`)
      .execute();
    expect(items.map((i) => ({ id: i.id, sha256: i.sha256.toString('hex'), size: Number(i.size) }))).toEqual([
      { id: session.media_item_id, sha256, size: whole.length },
    ]);
    const object = await getObject(deps, acme.developer, { ontology: 'cell-acme', objectType: 'vision.Photo', primaryKey: 'p1' });
    expect(JSON.stringify(object)).toContain(session.media_item_id!);
    // The item is its two parts, recorded once; nothing was stored under its hash; it reads whole.
    const composite = await db
      .selectFrom('media_composite_parts')
      .select(['part_sha256', 'start', 'size'])
      .where('item_sha256', '=', Buffer.from(sha256, 'hex'))
      .orderBy('position')
      .execute();
    expect(composite.map((p) => [p.part_sha256.toString('hex'), p.start, p.size])).toEqual([
      [partSha[0], 0, parts[0]!.length],
      [partSha[1], parts[0]!.length, parts[1]!.length],
    ]);
    expect(s3.puts).not.toContain(`restart/sha256/${sha256}`);
    expect(
      createHash('sha256')
        .update(await readItemContent(deps, sha256))
        .digest('hex'),
    ).toBe(sha256);
  });
});
