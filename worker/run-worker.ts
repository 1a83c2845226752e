import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import { TASK_QUEUE } from './shared.ts';
import type { TemporalConnections } from './temporal.ts';
import { workflowBundle } from './workflow-bundle.ts';

let runtimeInstalled = false;
/**
 * The SDK would otherwise stop every worker on SIGINT/SIGTERM by itself, racing
 * the service's ordered shutdown, and log each state change at INFO.
 */
export function installTemporalRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('WARN') });
}

/** Runs the worker in this process until `stop`. */
export async function runWorker(temporal: TemporalConnections, deps: ActivityDeps & { logger: Logger }) {
  const { bundle, prebuilt } = await workflowBundle();
  const worker = await Worker.create({
    connection: temporal.native,
    namespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    workflowBundle: bundle,
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
