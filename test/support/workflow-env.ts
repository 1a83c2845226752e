import { createTemporalEnv, type TemporalEnvOptions } from '@svc/temporal-dev/testing';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll } from 'vitest';
import { type ActivityDeps, createActivities } from '../../activities/index.ts';
import { localModelProvider } from '../../domain/app-workflows/model-provider.ts';
import { cachedBlobStore, postgresBlobBackend, postgresBlobLedger } from '../../domain/apps/index.ts';
import { unconfiguredMailer } from '../../domain/mail/mailer.ts';
import type { CloudProvider } from '../../domain/provisioning/cloud-provider.ts';
import { localCloudProvider } from '../../infra/cloud/local-provider.ts';
import { ensureSearchAttributes } from '../../worker/search-attributes.ts';
import { bundleWorkflows } from '../../worker/workflow-bundle.ts';
import { TASK_QUEUE } from '../../workflows/contract.ts';
import { testConnectivity } from './connectivity.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { companyRootAt } from './provisioning.ts';

export interface WorkflowTestEnv {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  /** Stops the running worker (as a crash would, after `graceMs`) and starts a new one with these dependencies. */
  replaceWorker(overrides?: Partial<Omit<ActivityDeps, 'db'>>, graceMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The product's workflows and activities, run by a real SDK worker on the embedded server with
 * time skipping, over a database of their own. Without a `cloud` the activities get a local
 * provider and a company root that no test of the caller reaches; mail is recorded (no SMTP) unless `overrides`
 * names a mailer, and model steps use the deterministic local provider.
 */
export async function startWorkflowTestEnv(
  cloud?: CloudProvider,
  overrides: Partial<Omit<ActivityDeps, 'db' | 'cloud'>> = {},
  /** The embedded server's options (e.g. dynamic config limits). */
  temporal: TemporalEnvOptions = {},
): Promise<WorkflowTestEnv> {
  const database = await createTestDatabase();
  const env = await createTemporalEnv('time-skipping', temporal);
  await ensureSearchAttributes(env.client, env.client.options.namespace);
  const workflowBundle = await bundleWorkflows();
  let deps: ActivityDeps = {
    db: database.db,
    cloud: cloud ?? localCloudProvider({ dir: '/nonexistent' }),
    companyRoot: companyRootAt('/nonexistent'),
    mailer: unconfiguredMailer,
    models: localModelProvider,
    connectivity: testConnectivity(),
    blobs: cachedBlobStore(postgresBlobBackend(database.db), 0, postgresBlobLedger(database.db)),
    blobSweepGraceMs: 24 * 3_600_000,
    ...overrides,
  };
  const start = async (graceMs?: number) => {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUE,
      workflowBundle,
      activities: createActivities(deps),
      ...(graceMs === undefined ? {} : { shutdownGraceTime: graceMs }),
    });
    return { worker, running: worker.run() };
  };
  let current = await start(0);
  const stopWorker = async () => {
    if (current.worker.getState() === 'RUNNING') current.worker.shutdown();
    await current.running;
  };
  return {
    env,
    database,
    async replaceWorker(next = {}) {
      await stopWorker();
      deps = { ...deps, ...next };
      current = await start(0);
    },
    async stop() {
      await stopWorker();
      await env.teardown();
      await database.drop();
    },
  };
}

/**
 * A test file's workflow environment: started before its tests (then `ready` runs, to take what it
 * needs and seed), stopped after them.
 */
export function useWorkflowTestEnv(ready: (started: WorkflowTestEnv) => void | Promise<void>): void {
  let started: WorkflowTestEnv | undefined;
  beforeAll(async () => {
    started = await startWorkflowTestEnv();
    await ready(started);
  }, 120_000);
  afterAll(async () => {
    await started?.stop();
  });
}

/** Reads until `done` holds (at most 20 s): for what a workflow writes in its own time. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; !done(value) && i < 400; i++) {
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}
