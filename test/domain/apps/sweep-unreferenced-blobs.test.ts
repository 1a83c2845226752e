import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BLOB_REFERENCES,
  type BlobBackend,
  type BlobStore,
  cachedBlobStore,
  postgresBlobBackend,
  postgresBlobLedger,
  sweepUnreferencedBlobs,
} from '../../../domain/apps/index.ts';
import type { Db } from '../../../domain/db/index.ts';
import { newId } from '../../../domain/security/random.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { define, insertCompanyWithDeveloper } from '../../support/ontology.ts';
import { startBlobBackend, type TestS3 } from '../../support/s3.ts';
import { until } from '../../support/workflow-env.ts';

// The blob sweep on both stores (PostgreSQL's blobs table, S3 on s3rver): random sets of blobs,
// each named by one of the referencing columns or by none, written long ago or just now; after a
// sweep in small pages exactly the unreferenced old ones are gone. Then the races that matter: a
// blob re-used within the grace period, and a writer storing a blob while the sweep deletes it.

const HOUR = 3_600_000;
const GRACE = 24 * HOUR;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const blob = (text: string) => ({ bytes: Buffer.from(text), sha256: sha(Buffer.from(text)) });
const hex = (s: string) => Buffer.from(s, 'hex');

/** A deterministic generator (mulberry32), so a failing case is the same on every run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One parent row for each referencing table, and a function that makes a row naming a hash there. */
async function referencers(db: Db) {
  const acme = await insertCompanyWithDeveloper(db, 'cell-acme');
  const accountId = acme.developer.kind === 'key' ? acme.developer.account.id : '';
  const appId = newId('app');
  await db
    .insertInto('apps')
    .values({ id: appId, namespace: 'cell-acme', slug: 'blobs', company_id: acme.companyId, created_by: accountId })
    .execute();
  const versionId = newId('ver');
  await db
    .insertInto('app_versions')
    .values({
      id: versionId,
      app_id: appId,
      version: '1.0.0',
      build: 1,
      digest: 'd',
      manifest: JSON.stringify({}),
      size: 0,
      file_count: 0,
      sdk_used: JSON.stringify([]),
      skills: JSON.stringify([]),
      warnings: JSON.stringify([]),
      created_by: accountId,
    })
    .execute();
  const setId = newId('mset');
  await db.insertInto('media_sets').values({ id: setId, company_id: acme.companyId, name: 'photos', schema: 'any' }).execute();
  const branchId = newId('mbr');
  await db
    .insertInto('media_set_branches')
    .values({ id: branchId, media_set_id: setId, name: 'main', view_id: newId('mview') })
    .execute();
  await define(db, acme, {
    types: [
      {
        apiName: 'Photo',
        primaryKey: 'id',
        properties: { id: { dataType: { type: 'string' } }, image: { dataType: { type: 'mediaReference' } } },
      },
    ],
  });
  const type = await db.selectFrom('object_types').select('id').where('api_name', '=', 'Photo').executeTakeFirstOrThrow();
  const uploadId = newId('mup');
  await db
    .insertInto('media_uploads')
    .values({
      id: uploadId,
      object_type_id: type.id,
      property: 'image',
      media_set_id: setId,
      size: 1,
      mime_type: 'image/png',
      state: 'OPEN',
    })
    .execute();
  let n = 0;
  const name: Record<(typeof BLOB_REFERENCES)[number]['table'], (hash: Buffer) => Promise<unknown>> = {
    version_files: (h) =>
      db
        .insertInto('version_files')
        .values({ version_id: versionId, path: `f${n++}`, blob_sha256: h, content_type: 'text/plain' })
        .execute(),
    media_items: (h) =>
      db
        .insertInto('media_items')
        .values({
          id: newId('mitem'),
          branch_id: branchId,
          transaction_id: null,
          visible: true,
          path: `p${n++}`,
          sha256: h,
          size: 1,
          mime_type: 'image/png',
        })
        .execute(),
    media_upload_parts: (h) =>
      db.insertInto('media_upload_parts').values({ upload_id: uploadId, part_number: n++, sha256: h, size: 1 }).execute(),
    media_composite_parts: async (h) => {
      const item = createHash('sha256').update(`composite ${n++}`).digest();
      // Touched in the ledger as an assembly does before it records a composite.
      await db.insertInto('blob_writes').values({ sha256: item }).execute();
      await db.insertInto('media_composites').values({ sha256: item, size: 1 }).execute();
      await db.insertInto('media_composite_parts').values({ item_sha256: item, position: 0, part_sha256: h, start: 0, size: 1 }).execute();
    },
    media_transformations: (h) =>
      db
        .insertInto('media_transformations')
        .values({ id: newId('mtr'), input_sha256: Buffer.alloc(32), status: 'SUCCESSFUL', output_sha256: h })
        .execute(),
    attachments: (h) =>
      db
        .insertInto('attachments')
        .values({ id: newId('att'), company_id: acme.companyId, filename: 'a', media_type: 'text/plain', size: 1, sha256: h })
        .execute(),
    world_assets: (h) =>
      db
        .insertInto('world_assets')
        .values({ id: newId('wa'), company_id: acme.companyId, name: `w${n++}`, sha256: h, size: 1 })
        .execute(),
  };
  return name;
}

describe.each(['postgres', 's3'] as const)('sweepUnreferencedBlobs on %s', (kind) => {
  let database: TestDatabase;
  let s3: TestS3 | undefined;
  let backend: BlobBackend;
  let store: BlobStore;
  let name: Awaited<ReturnType<typeof referencers>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    s3 = await startBlobBackend(kind);
    backend = s3 ? s3.backend('sweep') : postgresBlobBackend(database.db);
    store = cachedBlobStore(backend, 0, postgresBlobLedger(database.db));
    name = await referencers(database.db);
  }, 60_000);
  afterAll(async () => {
    await s3?.close();
    await database.drop();
  });

  const stored = async (hash: string) => (await backend.fetch(hash)) !== undefined;
  const age = (hashes: string[], hours: number) =>
    database.db
      .updateTable('blob_writes')
      .set({ written_at: sql`now() - make_interval(hours => ${hours})` })
      .where('sha256', 'in', hashes.map(hex))
      .execute();
  const sweep = (opts: { dryRun?: boolean; now?: Date } = {}) =>
    sweepUnreferencedBlobs(
      { db: database.db, blobs: store },
      { now: opts.now ?? new Date(), graceMs: GRACE, batchSize: 7, dryRun: opts.dryRun ?? false },
    );

  it('keeps every referenced or young blob and deletes every unreferenced old one, in pages; a dry run counts the same and deletes nothing', async () => {
    const tables = BLOB_REFERENCES.map((r) => r.table);
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      const cases = Array.from({ length: 30 }, (_, i) => {
        const by = next() < 0.5 ? tables[Math.floor(next() * tables.length)]! : undefined;
        return { ...blob(`${kind} seed ${seed} blob ${i}`), by, old: next() < 0.6 };
      });
      await store.put(cases);
      for (const c of cases) if (c.by) await name[c.by](hex(c.sha256));
      await age(
        cases.filter((c) => c.old).map((c) => c.sha256),
        48,
      );
      const doomed = cases.filter((c) => c.old && !c.by);

      const dry = await sweep({ dryRun: true });
      expect(dry.removed).toBe(doomed.length);
      const ledger = await database.db.selectFrom('blob_writes').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
      for (const c of cases) expect(await stored(c.sha256)).toBe(true);

      const result = await sweep();
      expect(result).toMatchObject({ removed: doomed.length, done: true });
      expect(result.examined).toBe(dry.examined);
      for (const c of cases)
        expect({ case: c.by ?? 'none', old: c.old, stored: await stored(c.sha256) }).toEqual({
          case: c.by ?? 'none',
          old: c.old,
          stored: !doomed.includes(c),
        });
      // The deleted ones' ledger rows go with them; the dry run had left the ledger as it was.
      const after = await database.db.selectFrom('blob_writes').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
      expect(after.n).toBe(ledger.n - doomed.length);
    }
  });

  it('keeps a blob stored or re-used again within the grace period, and stores again one written while the sweep deletes it', async () => {
    const reput = blob(`${kind} put again`);
    const reused = blob(`${kind} re-used`);
    await store.put([reput, reused]);
    await age([reput.sha256, reused.sha256], 48);
    await store.put([reput]);
    await store.touch([reused.sha256]);
    await sweep();
    expect(await stored(reput.sha256)).toBe(true);
    expect(await stored(reused.sha256)).toBe(true);

    // The sweep pauses inside its delete (its rows locked); a writer stores the same blob meanwhile.
    const raced = blob(`${kind} raced`);
    await store.put([raced]);
    await age([raced.sha256], 48);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let entered!: () => void;
    const deleting = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const paused: BlobStore = {
      ...store,
      async remove(hashes, trx) {
        entered();
        await gate;
        await store.remove(hashes, trx);
      },
    };
    const sweeping = sweepUnreferencedBlobs(
      { db: database.db, blobs: paused },
      { now: new Date(), graceMs: GRACE, batchSize: 500, dryRun: false },
    );
    await deleting;
    const writing = store.put([raced]);
    // The writer waits for the sweep's lock on the blob's ledger row before it looks at the store.
    const waiting = async () =>
      (
        await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%blob_writes%'`.execute(
          database.db,
        )
      ).rows[0]!.n;
    try {
      expect(await until(waiting, (n) => n > 0)).toBeGreaterThan(0);
    } finally {
      open();
    }
    expect((await sweeping).removed).toBe(1);
    await writing;
    expect(await stored(raced.sha256)).toBe(true);
  });

  it('dates a blob stored without the ledger by the store itself', async () => {
    const early = blob(`${kind} before the ledger`);
    await backend.put([early]);
    expect((await sweep()).removed).toBe(0);
    expect(await stored(early.sha256)).toBe(true);
    // Two days on, nothing re-used it: it goes.
    expect((await sweep({ now: new Date(Date.now() + 2 * GRACE) })).removed).toBeGreaterThanOrEqual(1);
    expect(await stored(early.sha256)).toBe(false);
  });
});

describe('BLOB_REFERENCES', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('names every hash column of the database but the store, its ledger and cache keys', async () => {
    const { rows } = await sql<{ table_name: string; column_name: string }>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND data_type = 'bytea' AND column_name LIKE '%sha256%'`.execute(database.db);
    // A composite item's hash names its list of parts, not a blob.
    const notReferences = [
      'blobs.sha256',
      'blob_writes.sha256',
      'media_transformations.input_sha256',
      'media_composites.sha256',
      'media_composite_parts.item_sha256',
    ];
    expect(
      rows
        .map((r) => `${r.table_name}.${r.column_name}`)
        .filter((c) => !notReferences.includes(c))
        .sort(),
    ).toEqual(BLOB_REFERENCES.map((r) => `${r.table}.${r.column}`).sort());
  });
});
