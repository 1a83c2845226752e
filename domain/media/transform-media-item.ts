// Media transformations (issue 30, item 4): image thumbnails and format conversion with sharp, on
// a pool of worker threads (never on the event loop), answered within the request. A job is named
// by the SHA-256 of its input's hash and its transformation, so it is also the cache: the same
// request on the same bytes (any item, any set) finds the job done and its result in the content store.
import { createHash } from 'node:crypto';
import {
  type ImageTransformation,
  MEDIA_LIMITS,
  type MediaItemView,
  TRANSFORMABLE_IMAGE_TYPES,
  type TransformationJobView,
  type TransformMediaItemInput,
} from '../../schemas/media.ts';
import type { BlobStore } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { tenantOf } from '../rate-limit/index.ts';
import { SPARE_CORES, WorkerPool, WorkerTimeoutError } from '../threads/index.ts';
import { readItemContent } from './composite-items.ts';
import { itemView, mediaSetFor, visibleItem } from './repository.ts';

export type ImageJob = { bytes: Buffer; transformation: ImageTransformation };
export type ImageJobResult = { ok: true; bytes: Uint8Array; mimeType: string } | { ok: false; tooManyPixels: boolean; failure: string };

/** CPU time for one image: far above a 40-megapixel decode, resize and encode (about 2 s), so only hostile input reaches it. */
const TRANSFORMATION_TIME_LIMIT_MS = 20_000;

const threads = new WorkerPool<ImageJob, ImageJobResult>({
  script: new URL('./transform-image-worker.ts', import.meta.url),
  size: SPARE_CORES,
  timeLimitMs: TRANSFORMATION_TIME_LIMIT_MS,
});

type Deps = { db: DbOrTrx; clock: Clock; blobs: BlobStore };
type Row = {
  id: string;
  status: 'SUCCESSFUL' | 'FAILED';
  output_mime_type: string | null;
  output_size: number | null;
  failure: string | null;
};
/** What a transformation request did before its transaction: the job, found or run (a dry run runs nothing). */
export type TransformationOutcome = { job: TransformationJobView; inputSha256: string; outputSha256: string | null; cached: boolean };

export const jobView = (row: Row): TransformationJobView => ({
  jobId: row.id,
  status: row.status,
  mimeType: row.output_mime_type,
  sizeBytes: row.output_size,
  failure: row.failure,
});

const unavailable = (type: string, mimeType: string) =>
  new DomainError('transformation_unavailable', `No ${type} transformation for items of type ${mimeType} here.`, {
    details: { transformationType: type, mimeType, available: { image: TRANSFORMABLE_IMAGE_TYPES } },
  });

/** Canonical JSON (keys sorted), so that the same transformation always names the same job. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(value);

/**
 * Runs (or finds) a transformation of a committed item the caller may read, before the write's
 * transaction: the worker thread's CPU time is never spent holding a connection. Refused first,
 * before any byte is read: another kind (transformation_unavailable), an item above the input
 * limit (transformation_input_too_large). A decoded size above the pixel limit is refused too,
 * from the image's header. An input that is not a readable image makes a FAILED job.
 */
export async function runMediaTransformation(
  deps: Deps,
  principal: Principal,
  ids: { mediaSetRid: string; mediaItemRid: string },
  { transformation }: TransformMediaItemInput,
  dryRun: boolean,
): Promise<TransformationOutcome> {
  const set = await mediaSetFor(deps, principal, ids.mediaSetRid, 'media-set.read');
  return transformItem(deps, itemView(set, await visibleItem(deps.db, set, ids.mediaItemRid)), transformation, dryRun, tenantOf(principal));
}

/** runMediaTransformation on an item the caller was admitted to (through its set, or through an object that references it). */
export async function transformItem(
  deps: Deps,
  item: MediaItemView,
  transformation: TransformMediaItemInput['transformation'],
  dryRun: boolean,
  /** Whose turn the job waits for on the threads (tenantOf the caller). */
  tenant: string,
): Promise<TransformationOutcome> {
  if (transformation.type !== 'image' || !(TRANSFORMABLE_IMAGE_TYPES as readonly string[]).includes(item.mimeType)) {
    throw unavailable(transformation.type, item.mimeType);
  }
  if (item.sizeBytes > MEDIA_LIMITS.transformationInputBytes) {
    throw new DomainError(
      'transformation_input_too_large',
      `Transformations read items of at most ${MEDIA_LIMITS.transformationInputBytes} bytes.`,
      {
        details: { limitBytes: MEDIA_LIMITS.transformationInputBytes, sizeBytes: item.sizeBytes },
      },
    );
  }
  const id = createHash('sha256')
    .update(`${item.sha256}\n${canonical(transformation)}`)
    .digest('hex');
  const found = await deps.db.selectFrom('media_transformations').selectAll().where('id', '=', id).executeTakeFirst();
  if (found)
    return { job: jobView(found), inputSha256: item.sha256, outputSha256: found.output_sha256?.toString('hex') ?? null, cached: true };
  // A dry run names the job it would run and runs nothing (the route answers its plan, not this job).
  if (dryRun)
    return {
      job: { jobId: id, status: 'FAILED', mimeType: null, sizeBytes: null, failure: null },
      inputSha256: item.sha256,
      outputSha256: null,
      cached: false,
    };

  const result = await imageOffThread({ bytes: await readItemContent(deps, item.sha256), transformation }, tenant);
  if (!result.ok) {
    if (result.tooManyPixels) {
      throw new DomainError(
        'transformation_input_too_large',
        `Transformations decode images of at most ${MEDIA_LIMITS.transformationInputPixels} pixels.`,
        {
          details: { limitPixels: MEDIA_LIMITS.transformationInputPixels },
        },
      );
    }
    const job = { jobId: id, status: 'FAILED' as const, mimeType: null, sizeBytes: null, failure: result.failure };
    return { job, inputSha256: item.sha256, outputSha256: null, cached: false };
  }
  const bytes = Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength);
  const outputSha256 = createHash('sha256').update(bytes).digest('hex');
  await deps.blobs.put([{ sha256: outputSha256, bytes }]);
  const job = { jobId: id, status: 'SUCCESSFUL' as const, mimeType: result.mimeType, sizeBytes: bytes.length, failure: null };
  return { job, inputSha256: item.sha256, outputSha256, cached: false };
}

/** Past the CPU limit the input is at fault (the limit is far above any real image's need): a FAILED job, not a 5xx. */
export async function imageOffThread(job: ImageJob, tenant: string, pool = threads): Promise<ImageJobResult> {
  // On the main thread before any pool thread, so its native libraries outlive them (sharp's advice
  // for worker threads); on first use, so a process that transforms nothing does not carry libvips.
  await import('sharp');
  try {
    return await pool.run(job, tenant);
  } catch (error) {
    if (!(error instanceof WorkerTimeoutError)) throw error;
    return { ok: false, tooManyPixels: false, failure: `the transformation took longer than ${pool.timeLimitMs} ms` };
  }
}

/** Records a job run before the transaction (a job found in the cache is already recorded). */
export async function recordMediaTransformation(db: DbOrTrx, outcome: TransformationOutcome): Promise<TransformationJobView> {
  if (outcome.cached) return outcome.job;
  const { job } = outcome;
  await db
    .insertInto('media_transformations')
    .values({
      id: job.jobId,
      input_sha256: Buffer.from(outcome.inputSha256, 'hex'),
      status: job.status,
      output_sha256: outcome.outputSha256 === null ? null : Buffer.from(outcome.outputSha256, 'hex'),
      output_mime_type: job.mimeType,
      output_size: job.sizeBytes,
      failure: job.failure,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return job;
}
