// The CLI's re-deploy of a 200-file, 3 MB app with one file changed: sending only what changed
// (the stored-files question, then an upload naming the other 199 files by hash) against
// uploading the whole bundle, in the same run. Both create a new version of the same app.
// Usage: npx node bench/cli-redeploy.ts [rounds=5]
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { uploadFiles } from '../cli/commands/deploy/upload.ts';
import { collectFiles, readManifest, validateLocally } from '../cli/util/app-folder.ts';
import { ApiClient } from '../cli/util/client.ts';
import { record } from './support/report.ts';
import { startBenchService } from './support/service.ts';
import { median, time } from './support/timing.ts';

const rounds = Number(process.argv[2] ?? 5);
const { svc, developerKey, stop } = await startBenchService();
const dir = await mkdtemp(path.join(tmpdir(), 'svc-bench-cli-'));
const app = { namespace: 'cell-bench', slug: 'redeploy' };
const client = new ApiClient(svc.url!, developerKey);

try {
  // 200 files, 3 MB in total: one page and 199 binary assets.
  const assetBytes = Math.floor((3 * 1024 * 1024 - 1024) / 199);
  for (let i = 0; i < 199; i++) await writeFile(path.join(dir, `a${i}.png`), randomBytes(assetBytes));
  let release = 0;
  /** A new version whose only changed file is the page; then what a deploy of the folder does. */
  const deploy = async (sendAll: boolean) => {
    release += 1;
    await writeFile(
      path.join(dir, 'plugin.json'),
      JSON.stringify({ manifestVersion: 1, slug: app.slug, version: `1.0.${release}`, title: 'Redeploy' }),
    );
    await writeFile(path.join(dir, 'index.html'), `<!doctype html><title>bench</title><p>release ${release}</p>`);
    let sent = 0;
    let reused = 0;
    const ms = await time(async () => {
      const folder = await readManifest(dir);
      const files = await collectFiles(dir);
      validateLocally(folder.manifest, files);
      const report = await uploadFiles(client, app, folder.manifest, files, { sendAll });
      if (!('created' in report.answer) || !report.answer.created) throw new Error('no new version');
      // The stored-files questions: 100 hashes of 64 hex characters and a comma each.
      const questions = sendAll ? 0 : Math.ceil(files.length / 100) * 100 * 65;
      sent = report.bytesSent + questions;
      reused = report.filesReused;
    });
    return { ms, sent, reused };
  };

  await deploy(true); // the first deploy stores every file
  const changed: { ms: number; sent: number; reused: number }[] = [];
  const whole: { ms: number; sent: number; reused: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternating, so neither side always runs on a warmer cache.
    if (r % 2 === 0) {
      changed.push(await deploy(false));
      whole.push(await deploy(true));
    } else {
      whole.push(await deploy(true));
      changed.push(await deploy(false));
    }
  }
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(3)} MiB`;
  const base = median(whole.map((w) => w.ms));
  console.log(`CLI re-deploy bench (200 files, 3 MB, one file changed), ${rounds} rounds, medians`);
  for (const [name, runs] of [
    ['baseline: whole-bundle upload', whole],
    ['svc deploy: only what changed', changed],
  ] as const) {
    const ms = median(runs.map((x) => x.ms));
    if (runs === changed) record({ name: `CLI re-deploy, ${name}`, value: ms, unit: 'ms', baseline: base });
    console.log(
      `${name.padEnd(34)} ${ms.toFixed(1).padStart(8)} ms  ${(ms / base).toFixed(2)}x baseline  ` +
        `sent ${mb(median(runs.map((x) => x.sent))).padStart(11)}  files reused ${median(runs.map((x) => x.reused))}`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  await stop();
}
