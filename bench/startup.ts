// Start-up: from spawning `node main.ts` (what `npm start` runs: embedded PostgreSQL, the
// embedded Temporal server, the worker and the HTTP server) to its "svc listening" line, on a
// fresh data folder (initdb, migrations, a new Temporal state file) and on a warm one (the same
// folder again). Baseline in the same run: node starting and exiting with nothing to do.
// Goal: warm start under 3 s on this machine.
// Usage: npx node bench/startup.ts [warm rounds=3]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { report } from './support/report.ts';
import { median, time } from './support/timing.ts';

const rounds = Number(process.argv[2] ?? 3);
const main = fileURLToPath(new URL('../main.ts', import.meta.url));

/** Milliseconds until the process prints that it listens; then stops it and waits for its exit. */
async function startOnce(dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', SVC_DATA_DIR: dataDir, SVC_TEMPORAL_UI_PORT: 'off', SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let out = '';
  const ms = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk;
      if (out.includes('svc listening on')) resolve(performance.now() - started);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`svc exited with ${code} before listening:\n${out}`)));
  });
  child.kill('SIGTERM');
  await exited;
  return ms;
}

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-bench-startup-'));
await fs.chmod(dataDir, 0o755); // PostgreSQL runs as `postgres` when we are root
try {
  const bare: number[] = [];
  for (let r = 0; r < 3; r++) bare.push(await time(() => spawnSync(process.execPath, ['-e', '0'])));
  const baseline = median(bare);
  const fresh = await startOnce(dataDir);
  const warm: number[] = [];
  for (let r = 0; r < rounds; r++) warm.push(await startOnce(dataDir));
  report({ name: 'baseline: node starting with nothing to do', value: baseline, unit: 'ms' });
  report({ name: 'npm start to listening, fresh data folder', value: fresh, unit: 'ms', baseline });
  report({ name: 'npm start to listening, warm data folder', value: median(warm), unit: 'ms', baseline, goal: '< 3000 ms' });
} finally {
  await fs.rm(dataDir, { recursive: true, force: true });
}
