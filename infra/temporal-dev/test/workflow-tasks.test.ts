// Workflow task semantics: replay after a worker restart, sticky fallback, task failures and
// timeouts, buffered events, queries during an in-flight task and signals racing a completion.
// Some tests play a misbehaving worker with raw SDK service calls before a real Worker takes over.
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemporalEnv, usesDownloadedServer } from '../testing.ts';
import { eventTypes, type RunningWorker, startWorker } from './helpers.ts';
import { addSignal, collect, itemsQuery } from './workflows/index.ts';

const { CommandType, TaskQueueKind, WorkflowTaskFailedCause } = temporal.api.enums.v1;

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTemporalEnv('local');
});
afterAll(() => env?.teardown());

const activities = { greet: async (name: string) => `Hello, ${name}!` };

/** Runs `body` with a real worker on `taskQueue`, stopping it afterwards. */
async function withWorker<T>(taskQueue: string, body: (w: RunningWorker) => Promise<T>, identity?: string): Promise<T> {
  const w = await startWorker(env, { taskQueue, activities, ...(identity ? { identity } : {}) });
  try {
    return await body(w);
  } finally {
    await w.stop();
  }
}

/** Takes the next workflow task from `taskQueue` the way a worker would, without answering it. */
async function pollRaw(taskQueue: string) {
  const task = await env.client.workflowService.pollWorkflowTaskQueue({
    namespace: 'default',
    taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    identity: 'raw-worker',
  });
  expect(task.taskToken?.length).toBeGreaterThan(0);
  return task;
}

const queue = (name: string) => `${name}-${randomUUID()}`;

describe('worker restart', () => {
  it('replays a cached workflow on a new worker after the first one stops', async () => {
    const taskQueue = queue('restart');
    const handle = await withWorker(
      taskQueue,
      async () => {
        const h = await env.client.workflow.start(collect, { taskQueue, workflowId: queue('restart-wf'), args: [2] });
        await h.signal(addSignal, 'before');
        expect(await h.query(itemsQuery)).toEqual(['before']);
        return h;
      },
      'worker-1',
    );
    const started = Date.now();
    const result = await withWorker(
      taskQueue,
      async () => {
        await handle.signal(addSignal, 'after');
        return await handle.result();
      },
      'worker-2',
    );
    expect(result).toEqual(['before', 'after']);
    // The old worker's sticky queue is released at shutdown, so no sticky timeout is waited out.
    expect(Date.now() - started).toBeLessThan(5000);
    const events = (await handle.fetchHistory()).events ?? [];
    const identities = events
      .filter((e) => e.workflowTaskStartedEventAttributes)
      .map((e) => e.workflowTaskStartedEventAttributes!.identity);
    expect(identities[0]).toBe('worker-1');
    expect(identities.at(-1)).toBe('worker-2');
  });

  it('moves a task left on a dead sticky queue to the normal queue after its schedule-to-start timeout', async () => {
    const taskQueue = queue('sticky');
    const handle = await env.client.workflow.start(collect, { taskQueue, workflowId: queue('sticky-wf'), args: [1] });
    const task = await pollRaw(taskQueue);
    await env.client.workflowService.respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: task.taskToken,
      identity: 'raw-worker',
      commands: [],
      stickyAttributes: {
        workerTaskQueue: { name: `dead-sticky-${randomUUID()}`, kind: TaskQueueKind.TASK_QUEUE_KIND_STICKY },
        scheduleToStartTimeout: msToTs('1s'),
      },
    });
    await handle.signal(addSignal, 'x');
    const result = await withWorker(taskQueue, () => handle.result());
    expect(result).toEqual(['x']);
    // Real Temporal may instead redirect at once when it knows the sticky queue has no poller.
    if (usesDownloadedServer()) return;
    const events = (await handle.fetchHistory()).events ?? [];
    const timedOut = events.find((e) => e.workflowTaskTimedOutEventAttributes);
    expect(timedOut?.workflowTaskTimedOutEventAttributes?.timeoutType).toBe(
      temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
    );
    const scheduled = events
      .filter((e) => e.workflowTaskScheduledEventAttributes)
      .map((e) => e.workflowTaskScheduledEventAttributes!.taskQueue!.kind);
    expect(scheduled).toEqual([
      TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
      TaskQueueKind.TASK_QUEUE_KIND_STICKY,
      TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
    ]);
  });
});

describe('long polls', () => {
  it('forgets a poll whose caller cancelled, so the next task goes to a live worker', async () => {
    const taskQueue = queue('cancelled-poll');
    const controller = new AbortController();
    const abandoned = env.connection
      .withAbortSignal(controller.signal, () =>
        env.client.workflowService.pollWorkflowTaskQueue({ namespace: 'default', taskQueue: { name: taskQueue }, identity: 'gone' }),
      )
      .catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 200));
    controller.abort();
    await abandoned;
    const started = Date.now();
    // Were the cancelled poll still registered, it would swallow this task until its 10 s timeout.
    const result = await withWorker(taskQueue, () =>
      env.client.workflow.execute(collect, { taskQueue, workflowId: queue('cp'), args: [0] }),
    );
    expect(result).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('workflow task failures and timeouts', () => {
  it('retries a failed workflow task', async () => {
    const taskQueue = queue('wt-fail');
    const handle = await env.client.workflow.start(collect, { taskQueue, workflowId: queue('wt-fail-wf'), args: [1] });
    const task = await pollRaw(taskQueue);
    await env.client.workflowService.respondWorkflowTaskFailed({
      namespace: 'default',
      taskToken: task.taskToken,
      identity: 'raw-worker',
      cause: WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE,
      failure: { message: 'raw worker failed' },
    });
    await handle.signal(addSignal, 'y');
    expect(await withWorker(taskQueue, () => handle.result())).toEqual(['y']);
    const events = (await handle.fetchHistory()).events ?? [];
    const failed = events.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes;
    expect(failed?.failure?.message).toBe('raw worker failed');
    const attempts = events
      .filter((e) => e.workflowTaskScheduledEventAttributes)
      .map((e) => e.workflowTaskScheduledEventAttributes!.attempt);
    expect(attempts.slice(0, 2)).toEqual([1, 2]);
  });

  it('times out an unanswered task, buffers events meanwhile, and holds queries until it resolves', async () => {
    const taskQueue = queue('wt-timeout');
    const handle = await env.client.workflow.start(collect, {
      taskQueue,
      workflowId: queue('wt-timeout-wf'),
      args: [1],
      workflowTaskTimeout: '1s',
    });
    await pollRaw(taskQueue);
    // The task is in flight: the signal is buffered and the query waits for the task to resolve.
    await handle.signal(addSignal, 'z');
    const query = handle.query(itemsQuery);
    const result = await withWorker(taskQueue, async () => {
      const r = await handle.result();
      expect(await query).toEqual(['z']);
      return r;
    });
    expect(result).toEqual(['z']);
    const types = eventTypes((await handle.fetchHistory()).events);
    expect(types.slice(0, 6)).toEqual([
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_TIMED_OUT',
      'WORKFLOW_EXECUTION_SIGNALED',
      'WORKFLOW_TASK_SCHEDULED',
    ]);
  });

  it('rejects a task response for a task that already timed out', async () => {
    const taskQueue = queue('wt-late');
    await env.client.workflow.start(collect, { taskQueue, workflowId: queue('wt-late-wf'), args: [1], workflowTaskTimeout: '1s' });
    const task = await pollRaw(taskQueue);
    await new Promise((r) => setTimeout(r, 1300));
    await expect(
      env.client.workflowService.respondWorkflowTaskCompleted({ namespace: 'default', taskToken: task.taskToken, commands: [] }),
    ).rejects.toMatchObject({ code: 5 });
  });
});

describe('signals racing a completing workflow task', () => {
  it('rejects a completion that would lose a signal received during the task', async () => {
    const taskQueue = queue('race-raw');
    const handle = await env.client.workflow.signalWithStart(collect, {
      taskQueue,
      workflowId: queue('race-raw-wf'),
      args: [1],
      signal: addSignal,
      signalArgs: ['a'],
    });
    const task = await pollRaw(taskQueue);
    await handle.signal(addSignal, 'b');
    await env.client.workflowService.respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: task.taskToken,
      identity: 'raw-worker',
      commands: [
        {
          commandType: CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
          completeWorkflowExecutionCommandAttributes: { result: { payloads: [defaultPayloadConverter.toPayload(['a'])] } },
        },
      ],
    });
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(await withWorker(taskQueue, () => handle.result())).toEqual(['a', 'b']);
    const failed = (await handle.fetchHistory()).events?.find((e) => e.workflowTaskFailedEventAttributes);
    expect(failed?.workflowTaskFailedEventAttributes?.cause).toBe(WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND);
  });

  it('never drops an acknowledged signal when many race the completion', async () => {
    const taskQueue = queue('race');
    await withWorker(taskQueue, async () => {
      for (let round = 0; round < 3; round++) {
        const handle = await env.client.workflow.start(collect, { taskQueue, workflowId: queue('race-wf'), args: [1] });
        const sent = Array.from({ length: 15 }, (_, i) => `s${i}`);
        const outcomes = await Promise.allSettled(sent.map((item) => handle.signal(addSignal, item)));
        const acknowledged = sent.filter((_, i) => outcomes[i]!.status === 'fulfilled');
        const result = await handle.result();
        expect(acknowledged.length).toBeGreaterThan(0);
        expect([...result].sort()).toEqual([...acknowledged].sort());
      }
    });
  });
});
