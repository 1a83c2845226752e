import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BlobStore,
  cachedBlobStore,
  postgresBlobBackend,
  postgresBlobLedger,
  sweepUnreferencedBlobs,
} from '../../../domain/apps/index.ts';
import { systemClock } from '../../../domain/deps.ts';
import {
  acceptUploadPart,
  assembleMediaUpload,
  attachMediaUpload,
  completeMediaUpload,
  createMediaUpload,
  deleteMediaUpload,
  putMediaUploadPart,
  readItemContent,
  UploadHashes,
} from '../../../domain/media/index.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { bodyOf } from '../../support/media.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture } from '../../support/ontology.ts';

// Composite items (an upload's item kept as its parts' blobs) on the PostgreSQL store, through the
// use cases the API and the assembly workflow run: exact range reads across parts, an identical
// item deduplicated, and the blob sweep keeping a composite's parts (even after a session that shared
// one was purged) until no row names the item.

const TARGET = { ontology: 'cell-acme', objectType: 'vision.Photo', property: 'image' };
const GRACE = 24 * 3_600_000;
const hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let database: TestDatabase;
let acme: OntologyFixture;
let store: BlobStore;
let deps: { db: TestDatabase['db']; clock: typeof systemClock; blobs: BlobStore };

beforeAll(async () => {
  database = await createTestDatabase();
  const db = database.db;
  store = cachedBlobStore(postgresBlobBackend(db), 0, postgresBlobLedger(db));
  deps = { db, clock: systemClock, blobs: store };
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
}, 60_000);
afterAll(() => database?.drop());

/** Opens a session for `parts`, sends them (in `order` of their numbers, 1-based) and records them. */
async function sendParts(parts: Buffer[], order = parts.map((_, i) => i + 1)) {
  const size = parts.reduce((sum, p) => sum + p.length, 0);
  const { uploadId } = await createMediaUpload(deps, acme.developer, TARGET, { sizeBytes: size, mimeType: 'video/mp4' });
  for (const n of order) {
    const part = { uploadId, partNumber: n };
    const content = await acceptUploadPart(deps, acme.developer, TARGET, part, bodyOf(parts[n - 1]!), false);
    await putMediaUploadPart(deps, acme.developer, TARGET, part, content);
  }
  return uploadId;
}

/** Completes, assembles and attaches a session as its workflow does. */
async function finish(uploadId: string) {
  await database.db.transaction().execute((trx) => completeMediaUpload({ db: trx, clock: systemClock }, acme.developer, TARGET, uploadId));
  const assembled = await assembleMediaUpload(deps, uploadId);
  if (assembled.outcome !== 'assembled') throw new Error(`not assembled: ${JSON.stringify(assembled)}`);
  expect(await attachMediaUpload(deps, uploadId, assembled)).toBe('completed');
  return assembled;
}

const compositeParts = async (sha256: string) =>
  (
    await database.db
      .selectFrom('media_composite_parts')
      .select(['part_sha256', 'start', 'size'])
      .where('item_sha256', '=', Buffer.from(sha256, 'hex'))
      .orderBy('position')
      .execute()
  ).map((p) => ({ sha256: p.part_sha256.toString('hex'), start: p.start, size: p.size }));

const stored = async (sha256: string) =>
  (await database.db.selectFrom('blobs').select('sha256').where('sha256', '=', Buffer.from(sha256, 'hex')).executeTakeFirst()) !==
  undefined;

/** Ages every ledger row two days, then sweeps (nothing is young any more: only references keep). */
async function sweepAll() {
  await database.db.updateTable('blob_writes').set({ written_at: sql`now() - interval '48 hours'` }).execute();
  return sweepUnreferencedBlobs(deps, { now: new Date(), graceMs: GRACE, batchSize: 3, dryRun: false });
}

describe('composite media items', () => {
  const parts = [Buffer.from('the first part, '), Buffer.from('then a second, '), Buffer.from('and the last one.')];
  const whole = Buffer.concat(parts);

  it('records an item of several parts as its parts and reads any range of it exactly, across part boundaries', async () => {
    const assembled = await finish(await sendParts(parts));
    expect(assembled).toEqual({ outcome: 'assembled', sha256: hex(whole), size: whole.length });
    expect(await compositeParts(hex(whole))).toEqual([
      { sha256: hex(parts[0]!), start: 0, size: parts[0]!.length },
      { sha256: hex(parts[1]!), start: parts[0]!.length, size: parts[1]!.length },
      { sha256: hex(parts[2]!), start: parts[0]!.length + parts[1]!.length, size: parts[2]!.length },
    ]);
    // Nothing is stored under the item's own hash.
    expect(await stored(hex(whole))).toBe(false);
    expect(await readItemContent(deps, hex(whole))).toEqual(whole);
    // A range reads only the parts it covers.
    const got: string[] = [];
    const counting: BlobStore = {
      ...store,
      get(sha256) {
        got.push(sha256);
        return store.get(sha256);
      },
    };
    const middle = parts[0]!.length + 2;
    expect(await readItemContent({ db: database.db, blobs: counting }, hex(whole), { start: middle, end: middle + 3 })).toEqual(
      whole.subarray(middle, middle + 4),
    );
    expect(got).toEqual([hex(parts[1]!)]);
    for (let start = 0; start < whole.length; start++) {
      for (let end = start; end < whole.length; end++) {
        expect((await readItemContent(deps, hex(whole), { start, end })).toString()).toBe(whole.subarray(start, end + 1).toString());
      }
    }
  }, 120_000);

  it('deduplicates an identical item uploaded again, split otherwise: one composite, the first upload’s parts', async () => {
    const first = await compositeParts(hex(whole));
    const again = [whole.subarray(0, 5), whole.subarray(5)];
    const assembled = await finish(await sendParts(again));
    expect(assembled.sha256).toBe(hex(whole));
    expect(await compositeParts(hex(whole))).toEqual(first);
    const items = await database.db
      .selectFrom('media_items')
      .select('sha256')
      .where('sha256', '=', Buffer.from(hex(whole), 'hex'))
      .execute();
    expect(items).toHaveLength(2);
    // The second upload's own parts are named by nothing now: the sweep takes them, not the item's.
    await sweepAll();
    for (const p of again) expect(await stored(hex(p))).toBe(false);
    for (const p of parts) expect(await stored(hex(p))).toBe(true);
    expect(await readItemContent(deps, hex(whole))).toEqual(whole);
  });

  it('keeps a composite’s parts through a purged session that shared one and through the sweep, until no row names the item', async () => {
    const shared = await sendParts([parts[0]!, Buffer.from('abandoned')]);
    await database.db.transaction().execute((trx) => deleteMediaUpload({ db: trx, clock: systemClock }, acme.developer, TARGET, shared));
    const swept = await sweepAll();
    expect(swept.removed).toBe(1);
    expect(await stored(hex(Buffer.from('abandoned')))).toBe(false);
    for (const p of parts) expect(await stored(hex(p))).toBe(true);
    expect(await readItemContent(deps, hex(whole), { start: 10, end: 20 })).toEqual(whole.subarray(10, 21));

    // The items go (as a replaced or deleted item's row does): the composite goes, then its parts.
    await database.db
      .deleteFrom('media_items')
      .where('sha256', '=', Buffer.from(hex(whole), 'hex'))
      .execute();
    await sweepAll();
    expect(await compositeParts(hex(whole))).toEqual([]);
    for (const p of parts) expect(await stored(hex(p))).toBe(false);
  });

  it('makes an item of one part that part’s blob, with no composite', async () => {
    const one = Buffer.from('a single part');
    const assembled = await finish(await sendParts([one]));
    expect(assembled.sha256).toBe(hex(one));
    expect(await compositeParts(hex(one))).toEqual([]);
    expect(await readItemContent(deps, hex(one), { start: 2, end: 7 })).toEqual(one.subarray(2, 8));
  });
});

describe('the item hash taken as parts arrive', () => {
  const parts = [Buffer.from('one, '), Buffer.from('two, '), Buffer.from('three, '), Buffer.from('four.')];
  const whole = Buffer.concat(parts);

  /**
   * A part sent: its number (its own bytes), or with other bytes, and how: `cut` feeds the first
   * bytes and fails (a body that stops early or goes over the limit), `dry` is a dry run.
   */
  type Send = number | [number, Buffer] | [number, Buffer, 'cut' | 'dry'];

  /** Sends parts (each in two chunks) through a process with running hashes, then assembles there, counting the part reads. */
  async function assembleWithHashes(sends: Send[]) {
    const receiving = { ...deps, uploadHashes: new UploadHashes() };
    const { uploadId } = await createMediaUpload(receiving, acme.developer, TARGET, { sizeBytes: whole.length, mimeType: 'text/plain' });
    for (const send of sends) {
      const [n, bytes, how] = typeof send === 'number' ? [send, parts[send - 1]!] : send;
      const part = { uploadId, partNumber: n };
      const chunks = [bytes.subarray(0, 2), bytes.subarray(2)];
      if (how === 'cut') {
        const cut = async (_limit: number, each: (chunk: Buffer) => void): Promise<Buffer> => {
          each(chunks[0]!);
          throw new Error('body cut short');
        };
        await expect(acceptUploadPart(receiving, acme.developer, TARGET, part, cut, false)).rejects.toThrow('body cut short');
        continue;
      }
      const content = await acceptUploadPart(receiving, acme.developer, TARGET, part, bodyOf(...chunks), how === 'dry');
      expect(content).toEqual({ sha256: hex(bytes), size: bytes.length });
      if (how !== 'dry') await putMediaUploadPart(receiving, acme.developer, TARGET, part, content);
    }
    await database.db
      .transaction()
      .execute((trx) => completeMediaUpload({ db: trx, clock: systemClock }, acme.developer, TARGET, uploadId));
    let reads = 0;
    const counting: BlobStore = {
      ...store,
      stream(sha256) {
        reads++;
        return store.stream(sha256);
      },
    };
    return { assembled: await assembleMediaUpload({ ...receiving, blobs: counting }, uploadId), reads };
  }

  it('reads no part when the parts came in order to this process, the last one sent again with the same bytes', async () => {
    const run = await assembleWithHashes([1, 2, 3, 3, 4, 4]);
    expect(run).toEqual({ assembled: { outcome: 'assembled', sha256: hex(whole), size: whole.length }, reads: 0 });
    expect(await readItemContent(deps, hex(whole))).toEqual(whole);
  });

  it('keeps the running hash as it was through a part cut short mid-body and a dry run of other bytes', async () => {
    const other = Buffer.from('TWO, ');
    const run = await assembleWithHashes([1, [2, other, 'cut'], [2, other, 'dry'], 2, 3, [4, other, 'cut'], 4]);
    expect(run).toEqual({ assembled: { outcome: 'assembled', sha256: hex(whole), size: whole.length }, reads: 0 });
  });

  it('falls back to one read of every part when they came out of order, or a part hashed was replaced', async () => {
    for (const sends of [
      [2, 1, 3, 4],
      [1, 2, 4, 3],
      // An earlier part sent again: its bytes are not hashed twice.
      [1, 2, 1, 3, 4],
      // Part 2 with other bytes, then again with its own: the item is what the session recorded.
      [1, [2, Buffer.from('TWO, ')], 2, 3, 4],
    ] as Send[][]) {
      const run = await assembleWithHashes(sends);
      expect({ sends: JSON.stringify(sends), ...run }).toEqual({
        sends: JSON.stringify(sends),
        assembled: { outcome: 'assembled', sha256: hex(whole), size: whole.length },
        reads: parts.length,
      });
    }
  });
});
