import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { BoundedCache } from '../cache/index.ts';
import type { Db, DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
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
  /**
   * The bytes under `sha256` as chunks, for contents too large to hold at once (media uploads):
   * neither cached nor checked here (the reader hashes them); `MissingBlobError` when nothing is stored.
   */
  stream(sha256: string): AsyncIterable<Buffer>;
  /**
   * Marks contents already stored as used again (a new row names them without storing them), so
   * the sweep's grace period starts again for them, as it does for every `put`.
   */
  touch(sha256s: readonly string[]): Promise<void>;
  /** Stored keys after `after` in key order (the sweep walks the store with it). */
  list: BlobBackend['list'];
  /** Deletes contents (the sweep, once it checked no row names them, in `trx` where the store is the database). */
  remove: BlobBackend['remove'];
  /** Whether contents of any size may be stored (an object store); the database keeps small ones only (media items). */
  readonly largeContent: boolean;
}

/**
 * Contents above the database's share (`databaseBytes`) need an object store: the one refusal of
 * media items, upload sessions and attachments when none is configured. `what` names them in the message.
 */
export function assertBlobDestination(blobs: BlobStore, size: number, databaseBytes: number, what: string): void {
  if (size > databaseBytes && !blobs.largeContent) {
    throw new DomainError(
      'media_upload_destination_not_configured',
      `${what} above ${databaseBytes} bytes are kept in an S3 store, and none is configured (SVC_BLOB_STORE).`,
      { details: { limitBytes: databaseBytes, sizeBytes: size } },
    );
  }
}

/** One page of a store's keys: each with when it was stored, and the cursor of the next page (none: the last). */
export interface BlobPage {
  blobs: { sha256: string; storedAt: Date }[];
  next: string | undefined;
}

/**
 * The sweep's grace clock (`blob_writes`): every write or re-use records its time here before it
 * reaches the backend, and waits while the sweep deletes the same key (domain/apps/sweep-unreferenced-blobs.ts).
 */
export interface BlobLedger {
  touch(sha256s: readonly string[]): Promise<void>;
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
  /** Streamed reads (an object store); absent: contents are small, read whole. */
  stream?(sha256: string): AsyncIterable<Buffer>;
  /** At most `limit` keys after the cursor `after` ('' first), in key order. */
  list(after: string, limit: number): Promise<BlobPage>;
  /**
   * Deletes the keys; a key already gone is no error. The database store deletes in `trx` (the
   * sweep's, which holds the keys' ledger rows: another connection could wait for writers that wait for it).
   */
  remove(sha256s: readonly string[], trx?: DbOrTrx): Promise<void>;
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
 * `ledger`: where writes record their time first (the service's store has it; the blob sweep is
 * safe only beside writers that record theirs).
 */
export function cachedBlobStore(backend: BlobBackend, cacheBytes: number, ledger?: BlobLedger): BlobStore {
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

  const get = (sha256: string): Promise<Buffer> => {
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
  };

  const touch = async (sha256s: readonly string[]) => {
    if (ledger && sha256s.length > 0) await ledger.touch(sha256s);
  };

  return {
    largeContent: backend.largeContent === true,
    async put(blobs) {
      await touch([...distinctBlobs(blobs).keys()]);
      await backend.put(blobs);
    },
    get,
    touch,
    list: (after, limit) => backend.list(after, limit),
    async remove(sha256s, trx) {
      await backend.remove(sha256s, trx);
      for (const sha256 of sha256s) cache.delete(sha256);
    },
    async *stream(sha256) {
      if (!SHA256_HEX.test(sha256)) throw new MissingBlobError(`not a blob address: ${sha256}`);
      if (backend.stream) yield* backend.stream(sha256);
      else yield await get(sha256);
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
    async list(after, limit) {
      const rows = await db
        .selectFrom('blobs')
        .select(['sha256', 'created_at'])
        .where('sha256', '>', Buffer.from(after, 'hex'))
        .orderBy('sha256')
        .limit(limit)
        .execute();
      const blobs = rows.map((r) => ({ sha256: r.sha256.toString('hex'), storedAt: r.created_at }));
      return { blobs, next: rows.length === limit ? blobs.at(-1)?.sha256 : undefined };
    },
    async remove(sha256s, trx) {
      if (sha256s.length === 0) return;
      await (trx ?? db)
        .deleteFrom('blobs')
        .where(
          'sha256',
          'in',
          sha256s.map((sha) => Buffer.from(sha, 'hex')),
        )
        .execute();
    },
  };
}

const TOUCH_BATCH = 1000;

/** The ledger in the service's database: one row per key, its time set to now() by each write. */
export function postgresBlobLedger(db: Db): BlobLedger {
  return {
    async touch(sha256s) {
      // Sorted: two writers touching overlapping keys lock them in one order (no deadlock). In
      // statements of at most TOUCH_BATCH keys (a bundle of many files stays far from PostgreSQL's parameter limit).
      const rows = [...new Set(sha256s)].sort().map((sha) => ({ sha256: Buffer.from(sha, 'hex') }));
      for (let at = 0; at < rows.length; at += TOUCH_BATCH) {
        await db
          .insertInto('blob_writes')
          .values(rows.slice(at, at + TOUCH_BATCH))
          .onConflict((oc) => oc.column('sha256').doUpdateSet({ written_at: sql`now()` }))
          .execute();
      }
    },
  };
}
