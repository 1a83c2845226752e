import type { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { type BlobBackend, distinctBlobs, MissingBlobError } from '../../domain/apps/index.ts';
import { DomainError } from '../../domain/errors.ts';

export interface S3BlobOptions {
  bucket: string;
  /** Key prefix without slashes at either end; '' puts objects at the bucket's root. */
  prefix: string;
  /** An S3-compatible server (path-style addressing); unset: AWS itself. */
  endpoint?: string | undefined;
}

// Uploads in flight at once for one bundle: enough to hide round trips, few enough not to
// exhaust the SDK's socket pool.
const PUT_CONCURRENCY = 8;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * S3 failing (unreachable, its 5xx, throttling) once the SDK's own retries are spent: a request
 * that needed it answers 503 with Retry-After, never a 500, and the cause is logged.
 */
async function orUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DomainError) throw err;
    // A refusal (credentials, bucket policy) is the operator's to fix, not a retry's: it stays an error.
    const status = err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
    if (status !== undefined && status < 500 && status !== 429) throw err;
    const unavailable = new DomainError('service_unavailable', 'The blob store is unavailable; retry shortly.', { retryAfterSeconds: 1 });
    throw Object.assign(unavailable, { cause: err });
  }
}

/**
 * Objects at `<prefix>/sha256/<hex>`, each written once and never changed. Region and
 * credentials come from the standard AWS chain (environment, shared files, instance role).
 */
export function s3BlobBackend(options: S3BlobOptions): BlobBackend {
  const client = new S3Client(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {});
  const Bucket = options.bucket;
  const keyOf = (sha256: string) => `${options.prefix ? `${options.prefix}/` : ''}sha256/${sha256}`;
  const keysAt = keyOf('');

  const exists = async (Key: string) => {
    try {
      await client.send(new HeadObjectCommand({ Bucket, Key }));
      return true;
    } catch (err) {
      if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404) return false;
      throw err;
    }
  };

  const putOne = async (sha256: string, bytes: Buffer) => {
    const Key = keyOf(sha256);
    if (await exists(Key)) return;
    try {
      // If-None-Match: a writer racing us between HEAD and PUT keeps its (identical) object;
      // ChecksumSHA256: the server refuses bytes damaged on the way.
      const put = new PutObjectCommand({
        Bucket,
        Key,
        Body: bytes,
        IfNoneMatch: '*',
        ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
        ContentType: 'application/octet-stream',
      });
      // The payload hash SigV4 signs is that same SHA-256, which the signer would otherwise compute
      // again over the whole body (the server checks it all the same).
      put.middlewareStack.add(
        (next) => (args) => {
          (args.request as { headers: Record<string, string> }).headers['x-amz-content-sha256'] = sha256;
          return next(args);
        },
        { step: 'build', name: 'knownPayloadHash' },
      );
      await client.send(put);
    } catch (err) {
      // 412: the object appeared meanwhile; 409: a concurrent conditional write of the same key.
      const status = err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
      if (status !== 412 && status !== 409) throw err;
    }
  };

  return {
    largeContent: true,
    async put(blobs) {
      const queue = [...distinctBlobs(blobs)];
      const worker = async () => {
        for (let next = queue.pop(); next; next = queue.pop()) await putOne(...next);
      };
      await orUnavailable(() => Promise.all(Array.from({ length: Math.min(PUT_CONCURRENCY, queue.length) }, worker)));
    },
    fetch: (sha256) =>
      orUnavailable(async () => {
        try {
          const out = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(sha256) }));
          return Buffer.from(await out.Body!.transformToByteArray());
        } catch (err) {
          if (err instanceof S3ServiceException && err.name === 'NoSuchKey') return undefined;
          throw err;
        }
      }),
    async *stream(sha256) {
      let body: Readable;
      try {
        body = (await orUnavailable(() => client.send(new GetObjectCommand({ Bucket, Key: keyOf(sha256) })))).Body as Readable;
      } catch (err) {
        if (err instanceof S3ServiceException && err.name === 'NoSuchKey') throw new MissingBlobError(`blob ${sha256} is not stored`);
        throw err;
      }
      yield* body;
    },
    list: (after, limit) =>
      orUnavailable(async () => {
        // Version 1 of the listing, paged by the last key (a marker): what every S3-compatible
        // server pages alike (version 2's continuation tokens fail on some, s3rver among them).
        const out = await client.send(
          new ListObjectsCommand({ Bucket, Prefix: keysAt, MaxKeys: limit, ...(after ? { Marker: keyOf(after) } : {}) }),
        );
        const listed = (out.Contents ?? []).map((o) => ({ name: o.Key!.slice(keysAt.length), storedAt: o.LastModified! }));
        // Keys that are no hash (put there by hand) are stepped over, never deleted.
        const blobs = listed.filter((o) => SHA256_HEX.test(o.name)).map((o) => ({ sha256: o.name, storedAt: o.storedAt }));
        return { blobs, next: out.IsTruncated ? listed.at(-1)?.name : undefined };
      }),
    async remove(sha256s) {
      // DeleteObjects takes at most 1,000 keys per request.
      for (let at = 0; at < sha256s.length; at += 1000) {
        const Objects = sha256s.slice(at, at + 1000).map((sha) => ({ Key: keyOf(sha) }));
        const out = await orUnavailable(() => client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } })));
        const failed = out.Errors ?? [];
        if (failed.length > 0) throw new Error(`S3 refused to delete ${failed.length} blobs: ${failed[0]!.Code} ${failed[0]!.Message}`);
      }
    },
    async reachable(signal) {
      // HeadBucket: the bucket exists and these credentials may use it, with no object read.
      await client.send(new HeadBucketCommand({ Bucket }), { abortSignal: signal });
    },
  };
}
