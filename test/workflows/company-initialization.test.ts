import fs from 'node:fs/promises';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudProvider } from '../../domain/provisioning/cloud-provider.ts';
import { getProvisioningStatus } from '../../domain/provisioning/get-provisioning-status.ts';
import { initializeCompany } from '../../domain/provisioning/initialize-company.ts';
import { requestProvisioning } from '../../domain/provisioning/request-provisioning.ts';
import { localCloudProvider } from '../../infra/cloud/local-provider.ts';
import { relayDue } from '../../worker/outbox-relay.ts';
import { temporalRunObserver } from '../../worker/provisioning-observer.ts';
import type { TestDatabase } from '../support/database.ts';
import { companyRootAt, initializeBody, tempRoots } from '../support/provisioning.ts';
import { startWorkflowTestEnv, type WorkflowTestEnv } from '../support/workflow-env.ts';

// The provisioning workflow on the embedded server with time skipping (retry back-off passes in
// no time), started through the outbox relay as the service does, against a cloud whose faults
// the test sets: a step failing twice, a step that keeps failing, a slow start, forbidden data.

let env: TestWorkflowEnvironment;
let database: TestDatabase;
let workflows: WorkflowTestEnv;
let roots: string;

/** The local cloud with faults and a gate the test controls. */
const faults = {
  findFailures: 0,
  alwaysFail: false,
  /** Holds the instance search (after any failures) until opened. */
  findGate: undefined as Promise<void> | undefined,
  /** Holds the instance's start until opened. */
  gate: undefined as Promise<void> | undefined,
  address: undefined as string | undefined,
};
let cloud: CloudProvider;

beforeAll(async () => {
  roots = await tempRoots();
  const local = localCloudProvider({ dir: path.join(roots, 'local-cloud'), pollIntervalMs: 10 });
  cloud = {
    kind: 'local',
    pollIntervalMs: 10,
    async findInstance(r) {
      if (faults.alwaysFail) throw new Error('cloud API unavailable (permanent)');
      if (faults.findFailures > 0) {
        faults.findFailures--;
        throw new Error(`cloud API throttled (${faults.findFailures} more)`);
      }
      await faults.findGate;
      return local.findInstance(r);
    },
    runInstance: (r) => local.runInstance(r),
    async describeInstance(r, id) {
      await faults.gate;
      const found = await local.describeInstance(r, id);
      return faults.address ? { ...found, address: faults.address } : found;
    },
  };
  workflows = await startWorkflowTestEnv(cloud, { companyRoot: companyRootAt(roots) });
  ({ env, database } = workflows);
}, 120_000);
afterAll(async () => {
  await workflows?.stop();
  await fs.rm(roots, { recursive: true, force: true });
});

const logger = pino({ level: 'silent' });
const relay = () => relayDue({ db: database.db, client: env.client, logger });
const statusOf = (cellId: string, live = false) =>
  getProvisioningStatus(database.db, live ? temporalRunObserver(env.client) : undefined, cellId);

/** Initialize as the route does: the use case in a transaction, then the relay delivers the start. */
async function initialize(cellId: string) {
  const queued = await database.db
    .transaction()
    .execute((trx) =>
      initializeCompany(
        trx,
        { ...initializeBody(cellId, path.join(roots, cellId)), accountId: 'acc_test' },
        { companyRoot: companyRootAt(roots) },
      ),
    );
  return delivered(queued);
}
/** The relay starts or joins the run and reports its id on the request. */
async function delivered(queued: { requestId: string; workflowId: string }) {
  await relay();
  const row = await database.db
    .selectFrom('provisioning_requests')
    .select('run_id')
    .where('id', '=', queued.requestId)
    .executeTakeFirstOrThrow();
  return { workflowId: queued.workflowId, runId: row.run_id! };
}
const result = (run: { workflowId: string; runId: string }) => env.client.workflow.getHandle(run.workflowId, run.runId).result();

describe('companyInitialization workflow', () => {
  it('retries a step that fails twice, then succeeds, and shows its attempts', async () => {
    faults.findFailures = 2;
    const run = await initialize('cell-flaky');
    await result(run);
    const s = await statusOf('cell-flaky');
    expect(s.status).toBe('completed');
    const step = s.runs[0]!.steps.find((st) => st.name === 'cloud-instance')!;
    expect(step).toMatchObject({ status: 'completed', attempts: 3, lastError: 'cloud API throttled (0 more)' });
    expect(s.runs[0]!.steps.filter((st) => st.name !== 'cloud-instance').every((st) => st.attempts === 1)).toBe(true);
  });

  it('surfaces a step that keeps failing with its error, and a later call runs it again', async () => {
    faults.alwaysFail = true;
    const run = await initialize('cell-broken');
    await expect(result(run)).rejects.toThrow();
    const s = await statusOf('cell-broken');
    expect(s.status).toBe('failed');
    expect(s.failingStep).toEqual({ name: 'cloud-instance', attempts: 5, lastError: 'cloud API unavailable (permanent)' });
    expect(s.runs[0]!.error).toBe('cloud-instance: cloud API unavailable (permanent)');
    expect(s.folders).toEqual([]);

    faults.alwaysFail = false;
    const again = await initialize('cell-broken');
    expect(again.runId).not.toBe(run.runId);
    await result(again);
    const after = await statusOf('cell-broken');
    expect(after.status).toBe('completed');
    expect(after.failingStep).toBeNull();
    expect(after.runs.map((r) => r.status)).toEqual(['completed', 'failed']);
  });

  it('joins the run that is going: a second initialize and the status see the same run and its current step', async () => {
    let open!: () => void;
    faults.gate = new Promise((resolve) => {
      open = resolve;
    });
    const first = await initialize('cell-slow');
    const second = await initialize('cell-slow');
    expect(second).toEqual(first);
    await expect.poll(async () => (await statusOf('cell-slow', true)).currentStep).toBe('instance-running');
    const s = await statusOf('cell-slow', true);
    expect(s.status).toBe('running');
    expect(s.runs).toHaveLength(1);
    faults.gate = undefined;
    open();
    await result(first);
    expect((await statusOf('cell-slow')).status).toBe('completed');
  });

  it('never re-parameterises the run that is going: other parameters are refused with its run id', async () => {
    let open!: () => void;
    faults.gate = new Promise((resolve) => {
      open = resolve;
    });
    const run = await initialize('cell-busy');
    await expect.poll(async () => (await statusOf('cell-busy', true)).currentStep).toBe('instance-running');
    const other = { ...initializeBody('cell-busy', path.join(roots, 'cell-busy-2'), { companyKey: 'busy-two' }), apply: 'move' as const };
    const refused = database.db
      .transaction()
      .execute((trx) =>
        initializeCompany(
          trx,
          { ...other, accountId: 'acc_test' },
          { companyRoot: companyRootAt(roots), liveRuns: temporalRunObserver(env.client) },
        ),
      );
    await expect(refused).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining(run.runId),
      details: { running: { workflowId: 'company-init:cell-busy', runId: run.runId } },
    });
    faults.gate = undefined;
    open();
    await result(run);
    const s = await statusOf('cell-busy');
    expect(s.company).toMatchObject({ companyKey: 'busy', rootPath: path.join(roots, 'cell-busy'), pendingMove: null });
    expect(s.runs).toHaveLength(1);
  });

  it('shows the attempt and last failure of a step being retried, live', async () => {
    let open!: () => void;
    faults.findFailures = 1;
    faults.findGate = new Promise((resolve) => {
      open = resolve;
    });
    const run = await initialize('cell-retrying');
    await expect
      .poll(async () => (await statusOf('cell-retrying', true)).failingStep)
      .toEqual({ name: 'cloud-instance', attempts: 2, lastError: 'cloud API throttled (0 more)' });
    const s = await statusOf('cell-retrying', true);
    expect([s.status, s.currentStep]).toEqual(['running', 'cloud-instance']);
    faults.findGate = undefined;
    open();
    await result(run);
    expect((await statusOf('cell-retrying')).failingStep).toBeNull();
  });

  it('never stores forbidden data a provider returns, and the run fails at once', async () => {
    faults.address = 'postgres://admin:hunter2@db.internal:5432/prod';
    const run = await initialize('cell-leaky');
    await expect(result(run)).rejects.toThrow();
    faults.address = undefined;
    const s = await statusOf('cell-leaky');
    expect(s.failingStep).toMatchObject({ name: 'instance-running', attempts: 1 });
    const stored =
      JSON.stringify(await database.db.selectFrom('company_provisioning').selectAll().execute()) +
      JSON.stringify(await database.db.selectFrom('provisioning_runs').selectAll().execute());
    expect(stored).not.toContain('hunter2');
  });

  it('runs one part under its own workflow id', async () => {
    const queued = await database.db
      .transaction()
      .execute((trx) => requestProvisioning(trx, { cellId: 'cell-flaky', part: 'folders', accountId: 'acc_test' }));
    expect(queued.workflowId).toBe('company-init:cell-flaky:folders');
    await result(await delivered(queued));
    const [run] = (await statusOf('cell-flaky')).runs;
    expect(run!.workflowId).toBe('company-init:cell-flaky:folders');
    expect(run!.steps.map((st) => st.name)).toEqual(['folders']);
  });
});
