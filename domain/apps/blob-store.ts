import { createHash } from 'node:crypto';
import { BoundedCache } from '../cache/index.ts';
import type { Db } from '../db/index.ts';
import { equalHashes } from '../security/index.ts';

/**
 * The content-addressed file store of app versions, as the rest of the service sees it
 * (`DomainDeps.blobs`). Keys are the lowercase hex SHA-256 of the bytes. Content never changes
 * under a key, so readers may cache freely and writers may skip keys already stored.
 */
export interface BlobStore {
  /**
   * Stores each distinct content once; content already stored is not written again. Each
   * `sha256` must be the hash of its `bytes` (bundle validation computed it).
   * Not transactional: the upload calls it before its transaction, so a failure after it
   * leaves unreferenced blobs only.
   */
  put(blobs: readonly { sha256: string; bytes: Buffer }[]): Promise<void>;
  /**
   * The bytes stored under `sha256`, checked against it: `CorruptBlobError` rather than wrong
   * bytes, `MissingBlobError` when nothing is stored. The Buffer may be shared with the cache
   * and other readers: never modify it.
   */
  get(sha256: string): Promise<Buffer>;
  /** Whether contents of any size may be stored (an object store); the database keeps small ones only (media items). */
  readonly largeContent: boolean;
}

/** Where bytes live (PostgreSQL or S3): stores and fetches, trusting the caller to verify. */
export interface BlobBackend {
  put: BlobStore['put'];
  /** The stored bytes as they are, or undefined when the key holds nothing. */
  fetch(sha256: string): Promise<Buffer | undefined>;
  /**
   * A cheap round trip proving the store answers (readiness); absent where another check
   * covers it (the postgres backend is the service's database).
   */
  reachable?(signal: AbortSignal): Promise<void>;
  /** An object store, for contents of any size; absent: the database, for small contents only. */
  largeContent?: true;
}

export class CorruptBlobError extends Error {
  override name = 'CorruptBlobError';
}

export class MissingBlobError extends Error {
  override name = 'MissingBlobError';
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * A backend behind a bounded in-process cache (LRU by bytes). Bytes are verified against their
 * hash once, as they come from the backend, so a hit costs no hashing; concurrent misses for
 * one hash share one fetch. `cacheBytes` 0 disables caching (every read fetches and verifies).
 */
export function cachedBlobStore(backend: BlobBackend, cacheBytes: number): BlobStore {
  const cache = new BoundedCache<string, Buffer>(cacheBytes, (bytes) => bytes.length);
  const inFlight = new Map<string, Promise<Buffer>>();

  const load = async (sha256: string): Promise<Buffer> => {
    const bytes = await backend.fetch(sha256);
    if (bytes === undefined) throw new MissingBlobError(`blob ${sha256} is not stored`);
    if (!equalHashes(createHash('sha256').update(bytes).digest(), Buffer.from(sha256, 'hex'))) {
      throw new CorruptBlobError(`blob ${sha256} does not match its content`);
    }
    cache.set(sha256, bytes);
    return bytes;
  };

  return {
    largeContent: backend.largeContent === true,
    put: (blobs) => backend.put(blobs),
    get(sha256) {
      // A malformed key would otherwise reach the backend as a path or a query value.
      if (!SHA256_HEX.test(sha256)) return Promise.reject(new MissingBlobError(`not a blob address: ${sha256}`));
      const hit = cache.get(sha256);
      if (hit) return Promise.resolve(hit);
      let pending = inFlight.get(sha256);
      if (!pending) {
        pending = load(sha256).finally(() => inFlight.delete(sha256));
        inFlight.set(sha256, pending);
      }
      return pending;
    },
  };
}

/** Distinct contents of a list, by hash: a bundle may hold the same bytes under several paths. */
export function distinctBlobs(blobs: readonly { sha256: string; bytes: Buffer }[]): Map<string, Buffer> {
  return new Map(blobs.map((b) => [b.sha256, b.bytes]));
}

/** The embedded default: the `blobs` table of the service's own database. */
export function postgresBlobBackend(db: Db): BlobBackend {
  return {
    async put(blobs) {
      for (const [sha, bytes] of distinctBlobs(blobs)) {
        await db
          .insertInto('blobs')
          .values({ sha256: Buffer.from(sha, 'hex'), size: bytes.length, content: bytes })
          .onConflict((oc) => oc.column('sha256').doNothing())
          .execute();
      }
    },
    async fetch(sha256) {
      const row = await db.selectFrom('blobs').select('content').where('sha256', '=', Buffer.from(sha256, 'hex')).executeTakeFirst();
      return row?.content;
    },
  };
}
