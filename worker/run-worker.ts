import { Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import { type ActivityDeps, createActivities } from '../activities/index.ts';
import { TASK_QUEUE } from '../workflows/contract.ts';
import type { TemporalConnections } from './connect-temporal.ts';
import { workflowBundle } from './workflow-bundle.ts';

/** Workflow tasks a worker runs at once (the SDK's default is 40). */
const WORKFLOW_TASKS_AT_ONCE = 100;

/**
 * Runs the worker in this process until `stop`. `bundleCacheDir`: where the workflow bundle is
 * kept between starts when none is prebuilt; `maxCachedWorkflows`: runs kept in memory between
 * their tasks (SVC_TEMPORAL_CACHED_WORKFLOWS).
 */
export async function runWorker(
  temporal: TemporalConnections,
  deps: ActivityDeps & { logger: Logger; bundleCacheDir?: string; maxCachedWorkflows: number },
) {
  const { bundle, prebuilt } = await workflowBundle({
    cacheDir: deps.bundleCacheDir,
    onCacheError: (err) => deps.logger.warn({ err }, 'cannot keep the workflow bundle for the next start'),
  });
  const worker = await Worker.create({
    connection: temporal.native,
    namespace: temporal.namespace,
    dataConverter: temporal.dataConverter,
    taskQueue: TASK_QUEUE,
    workflowBundle: bundle,
    maxCachedWorkflows: deps.maxCachedWorkflows,
    // A workflow task holds its slot while its local activities run (a run's steps, its database
    // work): at the SDK's 40, the 41st run in flight waited for one to finish. At most the cache,
    // which the SDK requires.
    maxConcurrentWorkflowTaskExecutions: Math.min(WORKFLOW_TASKS_AT_ONCE, deps.maxCachedWorkflows),
    activities: createActivities(deps),
  });
  const running = worker.run();
  deps.logger.info({ taskQueue: TASK_QUEUE, prebuiltBundle: prebuilt }, 'Temporal worker started');
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
