import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BlobBackend,
  CorruptBlobError,
  cachedBlobStore,
  MissingBlobError,
  postgresBlobBackend,
  postgresBlobLedger,
} from '../../../domain/apps/blob-store.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';

const blob = (text: string) => {
  const bytes = Buffer.from(text);
  return { sha256: createHash('sha256').update(bytes).digest('hex'), bytes };
};

/** A backend in memory that counts fetches and can hold wrong bytes or answer slowly. */
function memoryBackend() {
  const objects = new Map<string, Buffer>();
  const fetched: string[] = [];
  let gate: Promise<void> = Promise.resolve();
  const backend: BlobBackend = {
    async put(blobs) {
      for (const b of blobs) if (!objects.has(b.sha256)) objects.set(b.sha256, b.bytes);
    },
    async fetch(sha256) {
      fetched.push(sha256);
      await gate;
      return objects.get(sha256);
    },
    async list() {
      return { blobs: [], next: undefined };
    },
    async remove(sha256s) {
      for (const sha256 of sha256s) objects.delete(sha256);
    },
  };
  return {
    backend,
    objects,
    fetched,
    hold() {
      let open!: () => void;
      gate = new Promise((resolve) => {
        open = resolve;
      });
      return open;
    },
  };
}

describe('cachedBlobStore', () => {
  it('fetches and verifies on a miss, then answers from the cache without the backend', async () => {
    const mem = memoryBackend();
    const store = cachedBlobStore(mem.backend, 1024);
    const a = blob('alpha');
    await store.put([a]);
    expect(await store.get(a.sha256)).toEqual(a.bytes);
    // Corrupting the backend now shows the second read never went back to it.
    mem.objects.set(a.sha256, Buffer.from('other'));
    expect(await store.get(a.sha256)).toEqual(a.bytes);
    expect(mem.fetched).toEqual([a.sha256]);
  });

  it('shares one fetch between concurrent misses for one hash', async () => {
    const mem = memoryBackend();
    const store = cachedBlobStore(mem.backend, 1024);
    const a = blob('alpha');
    await store.put([a]);
    const open = mem.hold();
    const reads = Promise.all([store.get(a.sha256), store.get(a.sha256), store.get(a.sha256)]);
    open();
    expect(await reads).toEqual([a.bytes, a.bytes, a.bytes]);
    expect(mem.fetched).toEqual([a.sha256]);
  });

  it('refuses bytes that do not match their hash, caches nothing of them, and fetches again next time', async () => {
    const mem = memoryBackend();
    const store = cachedBlobStore(mem.backend, 1024);
    const a = blob('alpha');
    mem.objects.set(a.sha256, Buffer.from('tampered'));
    await expect(store.get(a.sha256)).rejects.toBeInstanceOf(CorruptBlobError);
    mem.objects.set(a.sha256, a.bytes);
    expect(await store.get(a.sha256)).toEqual(a.bytes);
    expect(mem.fetched).toEqual([a.sha256, a.sha256]);
  });

  it('evicts by bytes: with room for two of three blobs, the least recently read is fetched again', async () => {
    const mem = memoryBackend();
    const [a, b, c] = [blob('a'.repeat(40)), blob('b'.repeat(40)), blob('c'.repeat(40))] as const;
    const store = cachedBlobStore(mem.backend, 100);
    await store.put([a, b, c]);
    for (const x of [a, b, a, c, a, b]) await store.get(x.sha256);
    // a b (a hit) c evicts b; a hit; b evicts c.
    expect(mem.fetched).toEqual([a.sha256, b.sha256, c.sha256, b.sha256]);
  });

  it('with a bound of 0 caches nothing but still verifies every read', async () => {
    const mem = memoryBackend();
    const store = cachedBlobStore(mem.backend, 0);
    const a = blob('alpha');
    await store.put([a]);
    await store.get(a.sha256);
    await store.get(a.sha256);
    expect(mem.fetched).toHaveLength(2);
  });

  it('answers MissingBlobError for unknown and malformed hashes (the latter without asking the backend)', async () => {
    const mem = memoryBackend();
    const store = cachedBlobStore(mem.backend, 1024);
    await expect(store.get(blob('absent').sha256)).rejects.toBeInstanceOf(MissingBlobError);
    await expect(store.get('../../etc/passwd')).rejects.toBeInstanceOf(MissingBlobError);
    expect(mem.fetched).toHaveLength(1);
  });
});

describe('postgresBlobBackend', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it('stores each content once and reads it back; a tampered row is refused', async () => {
    const store = cachedBlobStore(postgresBlobBackend(database.db), 0);
    const a = blob('alpha');
    await store.put([a, a]);
    await store.put([a]);
    const rows = await database.db.selectFrom('blobs').select(['sha256', 'size']).execute();
    expect(rows).toEqual([{ sha256: Buffer.from(a.sha256, 'hex'), size: 5 }]);
    expect(await store.get(a.sha256)).toEqual(a.bytes);
    await database.db
      .updateTable('blobs')
      .set({ content: Buffer.from('ALPHA') })
      .execute();
    await expect(store.get(a.sha256)).rejects.toBeInstanceOf(CorruptBlobError);
  });

  it('records the time of every content a put stores, a bundle of thousands of files included', async () => {
    const store = cachedBlobStore(postgresBlobBackend(database.db), 0, postgresBlobLedger(database.db));
    const many = Array.from({ length: 2500 }, (_, i) => blob(`file ${i}`));
    await store.put([...many, many[0]!]);
    const ledger = await database.db.selectFrom('blob_writes').select('sha256').execute();
    expect(ledger.map((r) => r.sha256.toString('hex')).sort()).toEqual(many.map((b) => b.sha256).sort());
  });
});
