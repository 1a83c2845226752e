// App publishing latency, measured against a baseline taken in the same run:
// hashing the same bytes and writing them to PostgreSQL with plain INSERTs.
// Usage: npx node bench/apps.ts [rounds=5]
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { record } from './support/report.ts';
import { startBenchService } from './support/service.ts';
import { median, time } from './support/timing.ts';

const rounds = Number(process.argv[2] ?? 5);
const { svc, developerKey: key, call, stop } = await startBenchService();

try {
  // 200 files, 3 MB decoded in total: one page and 199 binary assets.
  const assetBytes = Math.floor((3 * 1024 * 1024 - 1024) / 199);
  const makeFiles = () => [
    { path: 'index.html', encoding: 'utf8', content: '<!doctype html><title>bench</title>' },
    ...Array.from({ length: 199 }, (_, i) => ({
      path: `assets/a${i}.png`,
      encoding: 'base64',
      content: randomBytes(assetBytes).toString('base64'),
    })),
  ];

  const baseline: number[] = [];
  const upload: number[] = [];
  const reupload: number[] = [];
  await sql`CREATE TABLE bench_baseline (sha bytea PRIMARY KEY, content bytea NOT NULL)`.execute(svc.deps.db);
  for (let r = 0; r < rounds; r++) {
    const files = makeFiles();
    baseline.push(
      await time(async () => {
        for (const f of files) {
          const bytes = Buffer.from(f.content, f.encoding as BufferEncoding);
          const sha = createHash('sha256').update(bytes).digest();
          await sql`INSERT INTO bench_baseline VALUES (${sha}, ${bytes}) ON CONFLICT DO NOTHING`.execute(svc.deps.db);
        }
      }),
    );
    const body = { manifest: { manifestVersion: 1, slug: `big-${r}`, version: '1.0.0', title: 'Big' }, files };
    upload.push(await time(() => call('POST', `/api/v1/developer/apps/cell-bench/big-${r}/versions`, body, key)));
    reupload.push(await time(() => call('POST', `/api/v1/developer/apps/cell-bench/big-${r}/versions`, body, key)));
  }

  // Promote and roll back on an app with 1 version and on one with 500.
  async function promoteLatency(slug: string, versions: number): Promise<number[]> {
    for (let v = 0; v < versions; v++) {
      const files = [{ path: 'index.html', encoding: 'utf8', content: `<p>${v}</p>` }];
      await call(
        'POST',
        `/api/v1/developer/apps/cell-bench/${slug}/versions`,
        { manifest: { manifestVersion: 1, slug, version: `1.0.${v}`, title: 'P' }, files },
        key,
      );
      if (v === 0 || v === versions - 1)
        await call('POST', `/api/v1/developer/apps/cell-bench/${slug}/channels/test`, { version: `1.0.${v}` }, key);
    }
    const first = '1.0.0';
    const last = `1.0.${versions - 1}`;
    const samples: number[] = [];
    for (let r = 0; r < rounds * 4; r++) {
      samples.push(
        await time(() =>
          call('POST', `/api/v1/developer/apps/cell-bench/${slug}/channels/production`, { version: r % 2 ? first : last }, key),
        ),
      );
    }
    return versions === 1 ? samples.filter((_, i) => i % 2 === 0) : samples;
  }
  const one = await promoteLatency('one-version', 1);
  const many = await promoteLatency('many-versions', 500);

  const base = median(baseline);
  const rows = [
    ['baseline: sha256 + INSERT of the same 200 files (3 MB)', base],
    ['upload 200 files / 3 MB (new version)', median(upload)],
    ['identical re-upload (existing version)', median(reupload)],
    ['promote/rollback, app with 1 version', median(one)],
    ['promote/rollback, app with 500 versions', median(many)],
  ] as const;
  console.log(`apps bench, ${rounds} rounds, medians`);
  for (const [name, ms] of rows) console.log(`${name.padEnd(58)} ${ms.toFixed(1).padStart(8)} ms  ${(ms / base).toFixed(2)}x baseline`);
  for (const [name, ms] of rows.slice(1)) record({ name, value: ms, unit: 'ms', baseline: base });
  record({ name: 'identical re-upload / same-run baseline', value: median(reupload) / base, unit: 'x', goal: '<= 0.3' });
  console.log(`500-version promote / 1-version promote: ${(median(many) / median(one)).toFixed(2)}x`);
} finally {
  await stop();
}
