import { createTemporalEnv } from '@svc/temporal-dev/testing';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { type ActivityDeps, createActivities } from '../../activities/index.ts';
import type { CloudProvider } from '../../domain/provisioning/cloud-provider.ts';
import { localCloudProvider } from '../../infra/cloud/local-provider.ts';
import { TASK_QUEUE } from '../../worker/shared.ts';
import { bundleWorkflows } from '../../worker/workflow-bundle.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface WorkflowTestEnv {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  stop(): Promise<void>;
}

/**
 * The product's workflows and activities, run by a real SDK worker on the embedded server with
 * time skipping, over a database of their own. Without a `cloud` the activities get a local
 * provider that no test of the caller reaches.
 */
export async function startWorkflowTestEnv(cloud?: CloudProvider): Promise<WorkflowTestEnv> {
  const database = await createTestDatabase();
  const env = await createTemporalEnv('time-skipping');
  const deps: ActivityDeps = { db: database.db, cloud: cloud ?? localCloudProvider({ dir: '/nonexistent' }) };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: await bundleWorkflows(),
    activities: createActivities(deps),
  });
  const running = worker.run();
  return {
    env,
    database,
    async stop() {
      worker.shutdown();
      await running;
      await env.teardown();
      await database.drop();
    },
  };
}
