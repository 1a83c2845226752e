// Blob read path: every file of a 200-file, 3 MB version read through the blob store, from
// PostgreSQL and from S3 (s3rver on loopback), with the cache cold (a fresh store: fetch and
// verify each blob) and warm (the same reads again: cache hits). Baseline in the same run:
// reading the same bytes from local files and hashing them.
// Usage: npx node bench/blobs.ts [rounds=5]
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { type BlobBackend, type BlobStore, cachedBlobStore, postgresBlobBackend } from '../domain/apps/index.ts';
import { connectDatabase, migrateToLatest } from '../domain/db/index.ts';
import { s3BlobBackend } from '../infra/blobs/s3-blob-backend.ts';
import { startEmbeddedPostgres } from '../infra/postgres/embedded-postgres.ts';
import { record } from './support/report.ts';
import { median, time } from './support/timing.ts';

const rounds = Number(process.argv[2] ?? 5);
const CACHE_BYTES = 64 * 1024 * 1024;
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-bench-blobs-'));
await fs.chmod(dataDir, 0o755);
const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg') });
const db = connectDatabase({ connectionString: pg.url });
const s3Dir = path.join(dataDir, 's3');
await fs.mkdir(s3Dir);
const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: 'bench-blobs' }] });
// s3rver's account, where the SDK's standard chain looks first.
Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' });

try {
  await migrateToLatest(db);
  const { port } = await s3.run();
  const backends: Record<string, BlobBackend> = {
    PostgreSQL: postgresBlobBackend(db),
    S3: s3BlobBackend({ bucket: 'bench-blobs', prefix: 'bench', endpoint: `http://127.0.0.1:${port}` }),
  };

  // Same shape as bench/apps.ts: one page and 199 binary assets, 3 MB in all.
  const assetBytes = Math.floor((3 * 1024 * 1024 - 1024) / 199);
  const blobs = [Buffer.from('<!doctype html><title>bench</title>'), ...Array.from({ length: 199 }, () => randomBytes(assetBytes))].map(
    (bytes) => ({ sha256: createHash('sha256').update(bytes).digest('hex'), bytes }),
  );
  const files = path.join(dataDir, 'files');
  await fs.mkdir(files);
  for (const b of blobs) await fs.writeFile(path.join(files, b.sha256), b.bytes);
  for (const backend of Object.values(backends)) await backend.put(blobs);

  const readAll = (store: BlobStore) => Promise.all(blobs.map((b) => store.get(b.sha256)));
  const baseline: number[] = [];
  const samples: Record<string, { cold: number[]; warm: number[] }> = {};
  for (const name of Object.keys(backends)) samples[name] = { cold: [], warm: [] };
  for (let r = 0; r < rounds; r++) {
    baseline.push(
      await time(() =>
        Promise.all(
          blobs.map(async (b) =>
            createHash('sha256')
              .update(await fs.readFile(path.join(files, b.sha256)))
              .digest(),
          ),
        ),
      ),
    );
    for (const [name, backend] of Object.entries(backends)) {
      const store = cachedBlobStore(backend, CACHE_BYTES);
      samples[name]!.cold.push(await time(() => readAll(store)));
      samples[name]!.warm.push(await time(() => readAll(store)));
    }
  }

  const base = median(baseline);
  const rows: [string, number][] = [['baseline: read + sha256 of the same 200 files (3 MB) from local files', base]];
  for (const [name, s] of Object.entries(samples)) {
    rows.push([`${name}, cache cold (fetch + verify each blob)`, median(s.cold)]);
    rows.push([`${name}, cache warm (hits)`, median(s.warm)]);
  }
  console.log(`blob read bench, ${rounds} rounds, medians, all 200 reads concurrent`);
  for (const [name, ms] of rows) console.log(`${name.padEnd(72)} ${ms.toFixed(2).padStart(9)} ms  ${(ms / base).toFixed(2)}x baseline`);
  for (const [name, ms] of rows.slice(1)) record({ name, value: ms, unit: 'ms', baseline: base });
} finally {
  await s3.close();
  await db.destroy();
  await pg.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
