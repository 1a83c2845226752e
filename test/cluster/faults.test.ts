import fs from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtpSink } from '../support/app-workflows.ts';
import { release } from '../support/hosting.ts';
import { bearer, passwordKey, seedCompanies } from '../support/identity.ts';
import { initializeBody } from '../support/provisioning.ts';
import { type ApiProcess, type Cluster, type ClusterProcess, startCluster } from './harness.ts';

// Faults of the scaled-out topology, each followed by a "nothing lost" check: a worker killed in
// the middle of its activities. One cluster for the file (its start-up is the cost); a test that
// kills or stops a process starts it again before it ends, so the next one finds the whole cluster.

let cluster: Cluster;
let smtp: SmtpSink;
let op: string;
let dev: string;
const api = (i: 0 | 1): ApiProcess => cluster.api[i];

beforeAll(async () => {
  smtp = await startSmtpSink();
  cluster = await startCluster({ env: { SVC_SMTP_URL: smtp.url } });
  console.log(`cluster ready in ${cluster.startupMs} ms`);
  ({ op } = await seedCompanies(api(0)));
  dev = await passwordKey(api(0), 'dana');
}, 180_000);
afterAll(async () => {
  await cluster?.close();
  await smtp?.stop();
});

/** A session of its own on the shared database, to hold locks that make a worker wait where a test wants it. */
async function lockHolder() {
  const client = new pg.Client({ connectionString: cluster.databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  return {
    query: (text: string, values?: unknown[]) => client.query(text, values),
    /** Ends the transaction (its locks go) and the session. */
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

/** Database sessions other than `except` waiting for a lock. */
async function waitingForLocks(except: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> ${except}`.execute(cluster.db);
  return rows[0]!.n;
}

async function stop(p: ClusterProcess, signal: NodeJS.Signals): Promise<void> {
  p.child.kill(signal);
  await p.exited;
}

/** Every execution of a workflow id on the Temporal server (a run started twice would show two). */
async function executionsOf(workflowId: string): Promise<string[]> {
  const runs: string[] = [];
  for await (const run of cluster.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(run.status.name);
  return runs;
}

describe('a worker killed (SIGKILL) in the middle of its activities', () => {
  it('the other worker completes a company initialization and an app workflow run, and no side effect repeats', async () => {
    const recipients = ['dana@example.com', 'mo@example.com'];
    const workflow = {
      description: 'Tells two people how many developers there are.',
      steps: [
        { id: 'people', kind: 'use', capability: 'platform.accounts', input: { role: 'developer' } },
        {
          id: 'tell',
          kind: 'notify',
          to: recipients,
          subject: 'Team',
          body: "=concat('developers: ', len(steps.people))",
          dedupeKey: 'team',
        },
      ],
    };
    await release(api(0), dev, { namespace: 'cell-acme', slug: 'teller', version: '1.0.0', manifest: { sdk: ['semantic'], workflow } });
    const app = await cluster.db.selectFrom('apps').select('id').where('slug', '=', 'teller').executeTakeFirstOrThrow();

    // Worker B out of the way: both runs' activities go to worker A, which then dies with them in flight.
    const [workerA, workerB] = cluster.workers;
    await stop(workerB, 'SIGTERM');
    // Worker A will wait inside the folders step (after its first folder) and inside the notify
    // step (before any message): writes to company_folders and the app's notify lock are held here.
    const locks = await lockHolder();
    const holder = (await locks.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    await locks.query('LOCK TABLE company_folders IN EXCLUSIVE MODE');
    await locks.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`notify:${app.id}`]);

    const root = path.join(cluster.companyRoot, 'killed');
    const init = await api(0).call('POST', '/api/v1/control-plane/companies/initialize', {
      body: initializeBody('cell-killed', root),
      headers: bearer(op),
    });
    expect(init.status, JSON.stringify(init.body)).toBe(202);
    // The answer waits for the run a moment (SVC_RUN_START_WAIT_MS): not awaited here.
    const executed = api(1).call('POST', '/api/v1/developer/apps/cell-acme/teller/apis/run/execute', {
      body: { input: {} },
      headers: bearer(dev),
    });
    await expect.poll(() => waitingForLocks(holder), { timeout: 30_000, interval: 50 }).toBe(2);

    await cluster.restart(workerB.name);
    await stop(workerA, 'SIGKILL');
    await locks.release();
    expect((await executed).status).toBe(202);

    const statusPath = '/api/v1/control-plane/companies/cell-killed/provisioning-status';
    const provisioning = async () => (await api(1).call('GET', statusPath, { headers: bearer(op) })).body.data;
    await expect.poll(async () => (await provisioning()).status, { timeout: 40_000, interval: 200 }).toBe('completed');
    const runsPath = '/api/v1/developer/apps/cell-acme/teller/workflow-runs';
    const runs = async () => (await api(0).call('GET', runsPath, { headers: bearer(dev) })).body.data.runs as { status: string }[];
    await expect.poll(async () => (await runs()).map((r) => r.status), { timeout: 40_000, interval: 200 }).toEqual(['succeeded']);

    // Nothing twice: one execution of each workflow, one run record, one message per recipient...
    const run = await cluster.db.selectFrom('workflow_runs').selectAll().where('app_id', '=', app.id).executeTakeFirstOrThrow();
    await expect.poll(() => executionsOf('company-init:cell-killed'), { timeout: 10_000, interval: 100 }).toEqual(['COMPLETED']);
    await expect.poll(() => executionsOf(run.workflow_id), { timeout: 10_000, interval: 100 }).toEqual(['COMPLETED']);
    expect(await cluster.db.selectFrom('workflow_runs').select('id').where('app_id', '=', app.id).execute()).toHaveLength(1);
    const messages = await cluster.db
      .selectFrom('workflow_notifications')
      .select(['recipient', 'status'])
      .where('run_id', '=', run.id)
      .execute();
    expect(messages.sort((x, y) => x.recipient.localeCompare(y.recipient))).toEqual(
      recipients.map((recipient) => ({ recipient, status: 'sent' })),
    );
    expect(
      smtp.received
        .filter((m) => m.subject === 'Team')
        .flatMap((m) => m.to)
        .sort(),
    ).toEqual(recipients);
    // ...each folder and profile recorded once, the folders step done again on the other worker
    // (attempt 2), its first folder found as the killed worker left it.
    const status = await provisioning();
    expect(status.folders).toHaveLength(10);
    expect(status.agentProfiles).toHaveLength(10);
    const [record] = await cluster.db
      .selectFrom('provisioning_runs')
      .select('steps')
      .where('workflow_id', '=', 'company-init:cell-killed')
      .execute();
    const folders = record!.steps.find((s) => s.name === 'folders')!;
    expect([folders.status, folders.attempts]).toEqual(['completed', 2]);
    expect(folders.changes.map((c) => c.outcome)).toEqual(['reused', ...Array(9).fill('created')]);
    expect((await fs.readdir(root)).sort()).toEqual([...status.folders.map((f: { name: string }) => f.name), 'agents'].sort());

    await cluster.restart(workerA.name);
  }, 120_000);
});
