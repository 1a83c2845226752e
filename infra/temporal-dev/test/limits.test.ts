// Temporal's size limits, lowered with --dynamic-config-value as the SDK's own tests do: blob and
// memo sizes of requests, commands, activity results, heartbeats, query and update results; the
// 4 MiB request limit; the history count and size limits; the continue-as-new suggestion.
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, TerminatedFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, eventually, grpcError, type RunningWorker, type Suite, setupSuite, startWorker, teardownSuite } from './helpers.ts';
import {
  addSignal,
  collect,
  failsTaskWith,
  greeting,
  itemsQuery,
  loopUntilSuggested,
  runActivity,
  sized,
  sizedUpdate,
  sizedUpdates,
  sleepLoop,
  waitForever,
} from './workflows/index.ts';

const { HistoryEvent } = temporal.api.history.v1;
const { WorkflowTaskFailedCause } = temporal.api.enums.v1;

const BLOB_LIMIT = 10 * 1024;
const OVER = BLOB_LIMIT + 1024;
const limits = {
  'limit.blobSize.error': BLOB_LIMIT,
  'limit.blobSize.warn': 2048,
  'limit.memoSize.error': BLOB_LIMIT,
  'limit.historyCount.suggestContinueAsNew': 20,
  'limit.historySize.suggestContinueAsNew': 8192,
  'limit.historyCount.error': 60,
  'limit.historySize.error': 30_000,
};

const activities = {
  greet: async (name: string) => `Hello, ${name.length} characters!`,
  bigResult: async () => 'r'.repeat(OVER),
  bigFailure: async () => {
    throw ApplicationFailure.retryable('f'.repeat(OVER), 'Big');
  },
  bigHeartbeat: async () => {
    Context.current().heartbeat('h'.repeat(OVER));
    await Context.current().sleep(300);
    return 'done';
  },
};

let s: Suite;
/** A worker that leaves size checks to the server (`disablePayloadErrorLimit`), as in the SDK's own test. */
let optOut: RunningWorker;
const optOutQueue = `limits-opt-out-${randomUUID()}`;
beforeAll(async () => {
  const extraArgs = Object.entries(limits).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${value}`]);
  s = await setupSuite('local', 'limits', activities, { extraArgs });
  optOut = await startWorker(s.env, { taskQueue: optOutQueue, activities, disablePayloadErrorLimit: true });
});
afterAll(async () => {
  await optOut?.stop();
  await teardownSuite(s);
});

const id = (prefix: string) => `${prefix}-${randomUUID()}`;
const events = async (workflowId: string) => (await s.env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];

/** The run ended as Temporal ends it for an oversized command: task failed with `cause`, then terminated. */
async function expectTerminatedFor(workflowId: string, cause: number, message: string): Promise<void> {
  const err = await s.env.client.workflow
    .getHandle(workflowId)
    .result()
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err as WorkflowFailedError).cause).toBeInstanceOf(TerminatedFailure);
  const history = await events(workflowId);
  expect(eventTypes(history).slice(-3)).toEqual(['WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_FAILED', 'WORKFLOW_EXECUTION_TERMINATED']);
  expect(history.at(-2)?.workflowTaskFailedEventAttributes).toMatchObject({ cause, failure: { message } });
  expect(history.at(-1)?.workflowExecutionTerminatedEventAttributes).toMatchObject({ reason: message, identity: 'history-service' });
}

describe('blob and memo size limits', () => {
  it('tells workers the limits (DescribeNamespace), which then fail oversized completions themselves', async () => {
    const described = await s.env.client.workflowService.describeNamespace({ namespace: 'default' });
    expect(Number(described.namespaceInfo?.limits?.blobSizeLimitError)).toBe(BLOB_LIMIT);
    expect(Number(described.namespaceInfo?.limits?.memoSizeLimitError)).toBe(BLOB_LIMIT);
    const handle = await s.env.client.workflow.start(sized, { taskQueue: s.taskQueue, workflowId: id('worker-check'), args: [OVER] });
    const failed = await eventually(async () => (await events(handle.workflowId)).find((e) => e.workflowTaskFailedEventAttributes));
    expect(failed.workflowTaskFailedEventAttributes?.cause).toBe(WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_PAYLOADS_TOO_LARGE);
    await handle.terminate();
  });

  it('refuses an oversized start input, memo or signal, takes one just under the limit, and refuses requests over 4 MiB', async () => {
    const start = (name: string, memo?: Record<string, unknown>) =>
      s.env.client.workflow.start(greeting, { taskQueue: s.taskQueue, workflowId: id('start'), args: [name], memo });
    expect(await grpcError(start('x'.repeat(OVER)))).toEqual({ code: 3, details: 'Blob data size exceeds limit.' });
    expect(await grpcError(start('x', { note: 'm'.repeat(OVER) }))).toEqual({ code: 3, details: 'Memo size exceeds limit.' });
    expect(await (await start('x'.repeat(BLOB_LIMIT - 1024))).result()).toBe(`Hello, ${BLOB_LIMIT - 1024} characters!`);
    // Temporal's frontend takes requests up to gRPC's default 4 MiB (RESOURCE_EXHAUSTED, which the SDK's client retries).
    const connection = await Connection.connect({ address: s.env.address, interceptors: [] });
    try {
      const huge = new Client({ connection }).workflow.start(greeting, {
        taskQueue: s.taskQueue,
        workflowId: id('huge'),
        args: ['x'.repeat(5 * 1024 * 1024)],
      });
      expect(await grpcError(huge)).toMatchObject({ code: 8 });
    } finally {
      await connection.close();
    }

    const handle = await s.env.client.workflow.start(collect, { taskQueue: s.taskQueue, workflowId: id('signal'), args: [1] });
    expect(await grpcError(handle.signal(addSignal, 's'.repeat(OVER)))).toEqual({ code: 3, details: 'Blob data size exceeds limit.' });
    const withStart = s.env.client.workflow.signalWithStart(collect, {
      taskQueue: s.taskQueue,
      workflowId: handle.workflowId,
      args: [1],
      signal: addSignal,
      signalArgs: ['s'.repeat(OVER)],
    });
    expect(await grpcError(withStart)).toEqual({ code: 3, details: 'Blob data size exceeds limit.' });
    await handle.signal(addSignal, 'small');
    expect(await handle.result()).toEqual(['small']);
  });

  it('terminates a run whose completion result or activity input is over the limit, after failing its task', async () => {
    const tooBigResult = await s.env.client.workflow.start(sized, { taskQueue: optOutQueue, workflowId: id('big-result'), args: [OVER] });
    await expectTerminatedFor(
      tooBigResult.workflowId,
      WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
      'BadScheduleActivityAttributes: CompleteWorkflowExecutionCommandAttributes.Result exceeds size limit.',
    );
    const tooBigInput = await s.env.client.workflow.start(sized, { taskQueue: optOutQueue, workflowId: id('big-input'), args: [0, OVER] });
    await expectTerminatedFor(
      tooBigInput.workflowId,
      WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
      'BadScheduleActivityAttributes: ScheduleActivityTaskCommandAttributes.Input exceeds size limit.',
    );
  });

  it('terminates a run whose update result is over the limit', async () => {
    const handle = await s.env.client.workflow.start(sizedUpdates, { taskQueue: optOutQueue, workflowId: id('big-update') });
    expect(await handle.executeUpdate(sizedUpdate, { args: [10] })).toBe('u'.repeat(10));
    await expect(handle.executeUpdate(sizedUpdate, { args: [OVER] })).rejects.toThrow();
    await expectTerminatedFor(
      handle.workflowId,
      WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE,
      'BadUpdateWorkflowExecutionMessage: Message type temporal.api.update.v1.Response exceeds size limit.',
    );
  });

  it('fails an activity whose result or heartbeat details are over the limit, without retries', async () => {
    const run = (name: string) =>
      s.env.client.workflow.execute(runActivity, {
        taskQueue: optOutQueue,
        workflowId: id(name),
        args: [name, { startToCloseTimeout: '10s' }, []],
      });
    expect(await run('bigResult')).toMatchObject({
      cause: 'Complete result exceeds size limit.',
      causeType: 'ServerFailure',
      retryState: 'NON_RETRYABLE_FAILURE',
    });
    expect(await run('bigHeartbeat')).toMatchObject({
      cause: 'Heartbeat details exceed size limit.',
      retryState: 'NON_RETRYABLE_FAILURE',
    });
    expect(await run('bigFailure')).toMatchObject({ cause: 'Failure exceeds size limit.', retryState: 'NON_RETRYABLE_FAILURE' });
  });

  it('replaces an oversized workflow task failure by a server failure with the original, truncated, as its cause', async () => {
    const handle = await s.env.client.workflow.start(failsTaskWith, {
      taskQueue: optOutQueue,
      workflowId: id('big-task-failure'),
      args: [OVER],
    });
    const failed = await eventually(async () => (await events(handle.workflowId)).find((e) => e.workflowTaskFailedEventAttributes));
    const failure = failed.workflowTaskFailedEventAttributes?.failure;
    expect(failure).toMatchObject({ message: 'Failure exceeds size limit.', serverFailureInfo: { nonRetryable: true } });
    expect(failure?.cause?.message).toMatch(/^e+$/);
    expect(Buffer.byteLength(failure?.cause?.message ?? '')).toBeLessThan(limits['limit.blobSize.warn']);
    await handle.terminate();
  });

  it('fails a query whose result is over the limit', async () => {
    const handle = await s.env.client.workflow.start(collect, { taskQueue: optOutQueue, workflowId: id('big-query'), args: [3] });
    const item = 'q'.repeat(BLOB_LIMIT / 2);
    await handle.signal(addSignal, item);
    expect(await handle.query(itemsQuery)).toEqual([item]);
    await handle.signal(addSignal, item);
    await expect(handle.query(itemsQuery)).rejects.toThrow('Blob data size exceeds limit.');
    await handle.terminate();
  });
});

describe('history limits', () => {
  it('suggests continuing as new past the event count, with the history size on each workflow task', async () => {
    const handle = await s.env.client.workflow.start(loopUntilSuggested, {
      taskQueue: s.taskQueue,
      workflowId: id('suggest'),
      args: [100],
    });
    const result = await handle.result();
    expect(result).toMatchObject({ continueAsNewSuggested: true, suggestedContinueAsNewReasons: ['TOO_MANY_HISTORY_EVENTS'] });
    const history = await events(handle.workflowId);
    const started = history.filter((e) => e.workflowTaskStartedEventAttributes);
    // Suggested on the first task started at event 20 or later, and on none before.
    expect(started.map((e) => Boolean(e.workflowTaskStartedEventAttributes?.suggestContinueAsNew))).toEqual(
      started.map((e) => Number(e.eventId) >= 20),
    );
    expect(result.historyLength).toBe(Number(started.at(-1)!.eventId));
    for (const e of started) {
      const before = history.slice(0, Number(e.eventId) - 1);
      const size = before.reduce((n, b) => n + HistoryEvent.encode(b).finish().length, 0);
      expect(Number(e.workflowTaskStartedEventAttributes?.historySizeBytes)).toBe(size);
    }
    expect(result.historySize).toBe(Number(started.at(-1)!.workflowTaskStartedEventAttributes?.historySizeBytes));
  });

  it('suggests continuing as new past the history size', async () => {
    const padding = 'p'.repeat(9000);
    const result = await s.env.client.workflow.execute(loopUntilSuggested, {
      taskQueue: s.taskQueue,
      workflowId: id('suggest-size'),
      args: [100, padding],
    });
    expect(result).toMatchObject({ loops: 0, continueAsNewSuggested: true, suggestedContinueAsNewReasons: ['HISTORY_SIZE_TOO_LARGE'] });
  });

  it('terminates a run past the history count limit when its next workflow task completes', async () => {
    const handle = await s.env.client.workflow.start(sleepLoop, { taskQueue: s.taskQueue, workflowId: id('count-limit'), args: [100] });
    const err = await handle.result().catch((e: unknown) => e);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(TerminatedFailure);
    expect((err as WorkflowFailedError).cause?.message).toBe('Workflow history count exceeds limit.');
    const history = await events(handle.workflowId);
    expect(history.at(-1)?.workflowExecutionTerminatedEventAttributes).toMatchObject({ identity: 'history-service' });
    expect(eventTypes(history).at(-2)).toBe('WORKFLOW_TASK_STARTED');
    expect(history.length).toBeGreaterThan(60);
    expect(history.length).toBeLessThan(70);
  });

  it('terminates a run past the history size limit when its next workflow task completes', async () => {
    const handle = await s.env.client.workflow.start(collect, { taskQueue: s.taskQueue, workflowId: id('size-limit'), args: [10] });
    const item = 'z'.repeat(9000);
    for (let i = 0; i < 4; i++) await handle.signal(addSignal, item);
    const err = await handle.result().catch((e: unknown) => e);
    expect((err as WorkflowFailedError).cause?.message).toBe('Workflow history size exceeds limit.');
    expect((await handle.describe()).historySize).toBeGreaterThan(30_000);
  });

  it('leaves runs under the limits alone', async () => {
    expect(await s.env.client.workflow.execute(sleepLoop, { taskQueue: s.taskQueue, workflowId: id('under-limit'), args: [5] })).toBe(5);
    const handle = await s.env.client.workflow.start(waitForever, { taskQueue: s.taskQueue, workflowId: id('idle') });
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.terminate();
  });
});
