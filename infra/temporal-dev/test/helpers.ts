// Shared plumbing for the temporal-dev conformance suite: one environment, one workflow bundle
// and one background worker per test file.
import { fileURLToPath } from 'node:url';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import { createTemporalEnv, type TemporalEnvFlavour, type TemporalEnvOptions } from '../testing.ts';

export const workflowsPath = fileURLToPath(new URL('./workflows/index.ts', import.meta.url));

/** Warnings workflows logged through the SDK (e.g. its unfinished-handler warning), by workflow id. */
export const workflowWarnings = new Map<string, string[]>();

// Keep SDK chatter (e.g. warnings for the activity failures tests provoke, or the core's retries
// while a test restarts the server) out of test output: only errors are printed, workflows'
// warnings are kept for the tests that check them. Each test file runs in its own process.
const logger = new DefaultLogger('WARN', ({ level, message, meta }) => {
  const workflowId = meta?.workflowId;
  if (level === 'WARN' && typeof workflowId === 'string')
    workflowWarnings.set(workflowId, [...(workflowWarnings.get(workflowId) ?? []), message]);
  if (level === 'ERROR') console.error(message, meta ?? '');
});
Runtime.install({ logger, telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });

let bundle: Promise<WorkflowBundle> | undefined;
export function sharedBundle(): Promise<WorkflowBundle> {
  bundle ??= bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  return bundle;
}

export interface RunningWorker {
  worker: Worker;
  stop(): Promise<void>;
}

export async function startWorker(
  env: TestWorkflowEnvironment,
  options: Partial<WorkerOptions> & { taskQueue: string },
): Promise<RunningWorker> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    workflowBundle: await sharedBundle(),
    ...options,
  });
  const running = worker.run();
  return {
    worker,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}

export interface Suite {
  env: TestWorkflowEnvironment;
  worker: RunningWorker;
  taskQueue: string;
}

/** Creates the environment and a worker running the test workflows with `activities`. */
export async function setupSuite(
  flavour: TemporalEnvFlavour,
  taskQueue: string,
  activities: object,
  envOptions?: TemporalEnvOptions,
): Promise<Suite> {
  const env = await createTemporalEnv(flavour, envOptions);
  const worker = await startWorker(env, { taskQueue, activities });
  return { env, worker, taskQueue };
}

export async function teardownSuite(suite: Suite | undefined): Promise<void> {
  await suite?.worker.stop();
  await suite?.env.teardown();
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const { EventType } = temporal.api.enums.v1;

/** Names of the history's event types, e.g. "WORKFLOW_EXECUTION_SIGNALED". */
export function eventTypes(events: HistoryEvent[] | null | undefined): string[] {
  return (events ?? []).map((e) => EventType[e.eventType ?? 0]!.replace(/^EVENT_TYPE_/, ''));
}

/** Polls `check` until it returns a truthy value (or throws after `timeoutMs`). */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The gRPC status code of a failed raw service call. */
export async function grpcError(call: Promise<unknown>): Promise<{ code: number; details: string }> {
  try {
    await call;
  } catch (err) {
    const e = err as { code?: number; details?: string; cause?: { code?: number; details?: string } };
    const source = e.code !== undefined ? e : (e.cause ?? {});
    return { code: source.code ?? -1, details: source.details ?? '' };
  }
  throw new Error('expected the call to fail');
}
