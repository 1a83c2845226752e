// Company initialization end to end with the local cloud provider: one initialize call until
// provisioning-status says completed (goal: under 2 s on this machine), then 20 companies at
// once. Baseline of the same run: the same steps called directly (no HTTP, outbox or Temporal),
// so the ratio is what the orchestration costs.
// Usage: npx node bench/company-init.ts [rounds=5]
import path from 'node:path';
import {
  awaitInstanceRunning,
  beginRun,
  createFolders,
  ensureCloudInstance,
  initializeCompany,
  writeAgentProfiles,
} from '../domain/provisioning/index.ts';
import { localCloudProvider } from '../infra/cloud/local-provider.ts';
import { record } from './support/report.ts';
import { startBenchService } from './support/service.ts';
import { median, time } from './support/timing.ts';

const rounds = Number(process.argv[2] ?? 5);
const { svc, dataDir, operatorKey, call, stop } = await startBenchService({ role: 'all' });

const body = (cellId: string) => ({
  nameEn: `${cellId} Trading`,
  nameZh: `${cellId} 贸易`,
  companyKey: cellId.slice(5),
  cellId,
  rootPath: path.join(dataDir, 'companies', cellId),
  cloud: { profile: 'bench', accountId: '123456789012', region: 'eu-central-1', instanceName: `${cellId}-main` },
});

/** One initialize call, then the status every 10 ms until the run completed. */
async function initializeToCompletion(cellId: string): Promise<number> {
  return time(async () => {
    const accepted = await call('POST', '/api/v1/control-plane/companies/initialize', body(cellId), operatorKey);
    for (;;) {
      const status = await call('GET', new URL(accepted.statusUrl).pathname, undefined, operatorKey);
      if (status.runs[0]?.runId === accepted.runId && status.status === 'completed') return;
      if (status.status === 'failed') throw new Error(`${cellId}: ${status.runs[0]?.error}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
}

/** The same steps called directly, each as its activity would. */
async function direct(cellId: string): Promise<number> {
  const db = svc.deps.db;
  const cloud = localCloudProvider({ dir: path.join(dataDir, 'direct-cloud'), pollIntervalMs: 0 });
  return time(async () => {
    await db.transaction().execute((trx) => initializeCompany(trx, { ...body(cellId), accountId: 'bench' }, svc.deps));
    const run = { runId: `direct-${cellId}`, workflowId: `direct:${cellId}`, attempt: 1 };
    await beginRun(db, run, { cellId, part: 'all' });
    const { instanceId } = await ensureCloudInstance({ db, cloud }, run, cellId, () => undefined);
    await awaitInstanceRunning({ db, cloud }, run, { cellId, instanceId }, () => undefined);
    const files = { db, companyRoot: svc.deps.companyRoot };
    await createFolders(files, run, cellId);
    await writeAgentProfiles(files, run, cellId);
  });
}

try {
  await initializeToCompletion('cell-warmup');
  const e2e: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < rounds; i++) {
    baseline.push(await direct(`cell-direct${i}`));
    e2e.push(await initializeToCompletion(`cell-single${i}`));
  }
  const single = median(e2e);
  record({
    name: 'company initialization, one company end to end',
    value: single,
    unit: 'ms',
    baseline: median(baseline),
    goal: '< 2000 ms',
  });
  console.log(
    `one company, end to end:   median ${single.toFixed(0)} ms over ${rounds} (goal < 2000 ms) ${single < 2000 ? 'ok' : 'OVER GOAL'}`,
  );
  console.log(
    `same steps called directly: median ${median(baseline).toFixed(0)} ms; orchestration ratio ${(single / median(baseline)).toFixed(1)}x`,
  );

  const concurrent = Array.from({ length: 20 }, (_, i) => `cell-many${i}`);
  const each: number[] = [];
  const wall = await time(() => Promise.all(concurrent.map(async (c) => each.push(await initializeToCompletion(c)))));
  record({ name: 'company initialization, 20 at once (wall)', value: wall, unit: 'ms' });
  console.log(
    `20 companies at once:       all done in ${wall.toFixed(0)} ms; per company median ${median(each).toFixed(0)} ms, slowest ${Math.max(...each).toFixed(0)} ms`,
  );
} finally {
  await stop();
}
