// App workflow runs on the embedded Temporal server (worker and relay in the process): runs per
// second of a three-step flow (use, per-row compute, summarize) with 50 in flight, and the
// latency from the start call to the first step's start. Baseline of the same run: the same
// use cases called directly (no Temporal), so the ratio is what the orchestration costs.
// Goals (issue 37): at least 60 runs/s, start to first step p99 under 50 ms (single runs).
// Usage: npx node bench/app-workflows.ts [runs=400] [single runs=50]

import { sql } from 'kysely';
import { beginRun, finishRun, localModelProvider, runStep, type StepRecord } from '../domain/app-workflows/index.ts';
import { getApp } from '../domain/apps/index.ts';
import { createUsageMeter } from '../domain/usage/index.ts';
import { workflowSchema } from '../schemas/manifest/workflow.ts';
import { TASK_QUEUE } from '../workflows/contract.ts';
import { report } from './support/report.ts';
import { startBenchService } from './support/service.ts';
import { cpuPer, processesCpu, threadCpu } from './support/thread-cpu.ts';
import { median, time } from './support/timing.ts';

const runs = Number(process.argv[2] ?? 400);
const singles = Number(process.argv[3] ?? 50);
/**
 * Runs in flight: each of this many lanes starts its next run as soon as its last one ends, so the
 * figure is the steady rate. (Batches of 50 that each waited for their slowest run measured the
 * batch's phases one after another: every run's start, then every first workflow task, and so on,
 * each phase bound by one thread while the other core waited.)
 */
const IN_FLIGHT = 50;
const { svc, developerKey, call, stop } = await startBenchService({ role: 'all' });

const workflow = {
  steps: [
    { id: 'people', kind: 'use', capability: 'platform.accounts' },
    { id: 'tagged', kind: 'compute', op: 'per-row', from: '=steps.people', fields: { tag: '=concat(row.role, ":", row.username)' } },
    { id: 'by_role', kind: 'compute', op: 'summarize', from: '=steps.tagged', groupBy: ['role'], measures: { n: { fn: 'count' } } },
  ],
};

try {
  const base = '/api/v1/developer/apps/cell-bench/flow';
  await call(
    'POST',
    `${base}/versions`,
    {
      manifest: { manifestVersion: 1, slug: 'flow', version: '1.0.0', title: 'Flow', sdk: ['semantic'], workflow },
      files: [{ path: 'index.html', encoding: 'utf8', content: '<!doctype html><title>flow</title>' }],
    },
    developerKey,
  );
  for (const channel of ['test', 'production']) await call('POST', `${base}/channels/${channel}`, { version: '1.0.0' }, developerKey);
  const db = svc.deps.db;
  const appId = (await getApp(db, 'cell-bench', 'flow')).id;
  const client = svc.temporal!.client;
  let n = 0;
  const startRun = () =>
    client.workflow.start('appWorkflowRun', { taskQueue: TASK_QUEUE, workflowId: `bench-${n++}`, args: [{ appId, trigger: 'schedule' }] });

  const meter = createUsageMeter(db);
  const steps = workflowSchema.parse(workflow).steps;
  const direct = async (i: number) => {
    const begun = await beginRun(db, { appId, trigger: 'schedule', workflowId: `direct-${i}`, at: new Date().toISOString() });
    if (begun.skipped) throw new Error(begun.reason);
    const outputs: Record<string, unknown> = {};
    for (const step of steps) {
      const result = await runStep(
        { db, models: localModelProvider, meter },
        { runId: begun.runId, step, scope: { ...begun.scope, steps: outputs }, at: new Date().toISOString() },
      );
      outputs[step.id] = result.output;
    }
    await finishRun(db, { runId: begun.runId, status: 'succeeded', output: outputs, at: new Date().toISOString() });
  };

  // Warm up the worker and the connection pool.
  await (await startRun()).result();
  await direct(-1);

  // Wall time, and CPU per run by thread of this process and of PostgreSQL's processes together (the
  // machine is shared: CPU per run moves far less with its load than runs per second do).
  const postgresPids = async () => (await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity`.execute(db)).rows.map((r) => r.pid);
  const throughput = async (label: string, one: () => Promise<unknown>) => {
    const pids = await postgresPids();
    const [before, postgresBefore] = [threadCpu(), processesCpu(pids)];
    let left = runs;
    const lane = async () => {
      while (left-- > 0) await one();
    };
    const ms = await time(() => Promise.all(Array.from({ length: Math.min(IN_FLIGHT, runs) }, lane)));
    const perRun = cpuPer(before, threadCpu(), runs);
    const postgres = (processesCpu([...new Set([...pids, ...(await postgresPids())])]) - postgresBefore) / runs;
    const total = perRun.reduce((sum, [, cpu]) => sum + cpu, 0);
    console.log(
      `${label}: CPU ${total.toFixed(1)} ms a run (${perRun.map(([name, cpu]) => `${name} ${cpu.toFixed(1)}`).join(', ')}), PostgreSQL ${postgres.toFixed(1)} ms`,
    );
    return { ms, cpu: total };
  };
  let d = 0;
  const directRun = await throughput('direct', () => direct(d++));
  const temporalRun = await throughput('Temporal', async () => (await startRun()).result());
  const directMs = directRun.ms;
  const temporalMs = temporalRun.ms;
  const rate = (ms: number) => (runs / ms) * 1000;
  report({
    name: 'CPU of the process per app workflow run (baseline: the use cases called directly)',
    value: temporalRun.cpu,
    unit: 'ms',
    baseline: directRun.cpu,
  });
  report({
    name: `three-step app workflow runs on the embedded Temporal server, ${IN_FLIGHT} in flight`,
    value: rate(temporalMs),
    unit: 'runs/s',
    baseline: rate(directMs),
    goal: '>= 60 runs/s',
  });

  const latencies: number[] = [];
  for (let i = 0; i < singles; i++) {
    const started = Date.now();
    const handle = await startRun();
    await handle.result();
    const row = await db.selectFrom('workflow_runs').select('steps').where('workflow_id', '=', handle.workflowId).executeTakeFirstOrThrow();
    const first = (row.steps as StepRecord[]).find((s) => s.id === 'people')!;
    latencies.push(new Date(first.startedAt).getTime() - started);
  }
  const p99 = [...latencies].sort((a, b) => a - b)[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))]!;
  console.log(`start to first step: median ${median(latencies)} ms, p99 ${p99} ms (${singles} single runs)`);
  report({ name: `app workflow start to first step, p99 of ${singles} single runs`, value: p99, unit: 'ms', goal: '< 50 ms' });
} finally {
  await stop();
}
