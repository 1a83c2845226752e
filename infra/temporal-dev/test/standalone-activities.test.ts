// Standalone activities through the SDK's `client.activity` (StartActivityExecution and its
// family) with a real SDK Worker executing them: results, retries, failures, heartbeats and
// cancellation, termination, timeouts, id reuse and conflict policies, describe, list, count, delete.
import { randomUUID } from 'node:crypto';
import { CancelledFailure, Context, sleep } from '@temporalio/activity';
import { ActivityExecutionAlreadyStartedError, ActivityExecutionFailedError, ActivityNotFoundError } from '@temporalio/client';
import { ApplicationFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, grpcError, type Suite, setupSuite, startWorker, teardownSuite } from './helpers.ts';

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;

const activities = {
  double: async (n: number) => n * 2,
  /** Fails its first two attempts. */
  flaky: async () => {
    const { attempt } = Context.current().info;
    if (attempt < 3) throw new Error(`attempt ${attempt} failed`);
    return `succeeded on attempt ${attempt}`;
  },
  refuse: async () => {
    throw ApplicationFailure.nonRetryable('not today', 'Refusal');
  },
  /** Heartbeats until cancelled (its sleep then throws CancelledFailure). */
  heartbeatUntilCancelled: async () => {
    const ctx = Context.current();
    for (let i = 0; ; i++) {
      ctx.heartbeat(i);
      await ctx.sleep(50);
    }
  },
  slow: async (ms: number) => {
    await sleep(ms);
    return 'slow done';
  },
};

let s: Suite;
beforeAll(async () => {
  s = await setupSuite('local', `standalone-${randomUUID()}`, activities);
});
afterAll(() => teardownSuite(s));

const id = (prefix: string) => `${prefix}-${randomUUID()}`;
const options = (activityId: string, extra: object = {}) => ({
  id: activityId,
  taskQueue: s.taskQueue,
  startToCloseTimeout: '10s',
  ...extra,
});

describe('standalone activities', () => {
  it('runs an activity without a workflow and hands its result to the caller; describe, list and count show it', async () => {
    const activityId = id('double');
    const handle = await s.env.client.activity.start('double', options(activityId, { args: [21] }));
    expect(handle.runId).toBeTruthy();
    expect(await handle.result()).toBe(42);
    expect(await s.env.client.activity.execute('double', options(id('double'), { args: [2] }))).toBe(4);

    const described = await handle.describe({ includeOutcome: true, includeInput: true });
    expect(described.status).toBe('COMPLETED');
    expect(described.activityType).toBe('double');
    expect(described.activityRunId).toBe(handle.runId);
    expect(described.taskQueue).toBe(s.taskQueue);
    expect(described.attempt).toBe(1);
    expect(described.startToCloseTimeoutMs).toBe(10_000);
    expect(described.lastWorkerIdentity).toBeTruthy();
    expect(described.closeTime).toBeInstanceOf(Date);

    const { namespaceInfo } = await s.env.client.workflowService.describeNamespace({ namespace: 'default' });
    expect(namespaceInfo?.capabilities).toMatchObject({ standaloneActivities: true, standaloneActivityOperatorCommands: true });

    const listed: string[] = [];
    for await (const info of s.env.client.activity.list(`ActivityId = "${activityId}"`)) listed.push(`${info.activityId} ${info.status}`);
    expect(listed).toEqual([`${activityId} COMPLETED`]);
    const count = await s.env.client.activity.count(
      `ActivityType = "double" AND ExecutionStatus = "Completed" AND TaskQueue = "${s.taskQueue}"`,
    );
    expect(count.count).toBe(2);
  });

  it('retries per the retry policy, and reports a final failure as the activity failure', async () => {
    const flaky = await s.env.client.activity.start('flaky', options(id('flaky'), { retry: { initialInterval: '10ms' } }));
    expect(await flaky.result()).toBe('succeeded on attempt 3');
    expect((await flaky.describe()).attempt).toBe(3);

    const limited = await s.env.client.activity.start(
      'flaky',
      options(id('limited'), { retry: { initialInterval: '10ms', maximumAttempts: 2 } }),
    );
    const err = await limited.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ActivityExecutionFailedError);
    expect((err as ActivityExecutionFailedError).cause?.message).toBe('attempt 2 failed');
    expect((await limited.describe()).status).toBe('FAILED');

    const refused = await s.env.client.activity.start('refuse', options(id('refuse')));
    const cause = ((await refused.result().catch((e: unknown) => e)) as ActivityExecutionFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('Refusal');
    expect((await refused.describe()).attempt).toBe(1);
  });

  it('delivers cancellation through heartbeats, and terminates', async () => {
    const handle = await s.env.client.activity.start('heartbeatUntilCancelled', options(id('cancel'), { heartbeatTimeout: '1s' }));
    await eventually(async () => (await handle.describe()).lastHeartbeatTime !== undefined);
    await handle.cancel('enough');
    const err = await handle.result().catch((e: unknown) => e);
    expect((err as ActivityExecutionFailedError).cause).toBeInstanceOf(CancelledFailure);
    const described = await handle.describe();
    expect(described.status).toBe('CANCELED');
    expect(described.rawInfo.canceledReason).toBe('enough');

    const slow = await s.env.client.activity.start('heartbeatUntilCancelled', options(id('terminate'), { heartbeatTimeout: '1s' }));
    await eventually(async () => (await slow.describe()).runState === 'STARTED');
    await slow.terminate('stop now');
    const terminated = await slow.result().catch((e: unknown) => e);
    expect((terminated as ActivityExecutionFailedError).cause).toBeInstanceOf(TerminatedFailure);
    expect((await slow.describe()).status).toBe('TERMINATED');
    expect(await grpcError(slow.cancel('late'))).toEqual({
      code: FAILED_PRECONDITION,
      details: 'activity is in terminal state ACTIVITY_EXECUTION_STATUS_TERMINATED',
    });
  });

  it('times out per start-to-close timeout', async () => {
    const handle = await s.env.client.activity.start(
      'slow',
      options(id('timeout'), { args: [2000], startToCloseTimeout: '100ms', retry: { maximumAttempts: 1 } }),
    );
    const cause = ((await handle.result().catch((e: unknown) => e)) as ActivityExecutionFailedError).cause;
    expect(cause).toBeInstanceOf(TimeoutFailure);
    expect((await handle.describe()).status).toBe('TIMED_OUT');
  });

  it('applies id conflict and reuse policies', async () => {
    const activityId = id('conflict');
    const first = await s.env.client.activity.start('slow', options(activityId, { args: [300] }));
    const conflict = await s.env.client.activity.start('slow', options(activityId, { args: [1] })).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ActivityExecutionAlreadyStartedError);
    expect((conflict as ActivityExecutionAlreadyStartedError).runId).toBe(first.runId);
    const existing = await s.env.client.activity.start('slow', options(activityId, { args: [1], idConflictPolicy: 'USE_EXISTING' }));
    expect(existing.runId).toBe(first.runId);
    expect(await first.result()).toBe('slow done');

    const rejected = await s.env.client.activity
      .start('slow', options(activityId, { args: [1], idReusePolicy: 'REJECT_DUPLICATE' }))
      .catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(ActivityExecutionAlreadyStartedError);
    const failedOnly = await s.env.client.activity
      .start('slow', options(activityId, { args: [1], idReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' }))
      .catch((e: unknown) => e);
    expect(failedOnly).toBeInstanceOf(ActivityExecutionAlreadyStartedError);
    const second = await s.env.client.activity.start('slow', options(activityId, { args: [1] }));
    expect(second.runId).not.toBe(first.runId);
    expect(await second.result()).toBe('slow done');
    // The first run is still there by its run id; the id alone names the newest.
    expect((await s.env.client.activity.getHandle(activityId, first.runId).describe()).activityRunId).toBe(first.runId);
    expect((await s.env.client.activity.getHandle(activityId).describe()).activityRunId).toBe(second.runId);
  });

  it('pauses, updates the options of, restores and unpauses an activity', async () => {
    const idleQueue = `standalone-idle-${randomUUID()}`;
    const handle = await s.env.client.activity.start('double', {
      id: id('pause'),
      taskQueue: idleQueue,
      startToCloseTimeout: '10s',
      args: [7],
    });
    await handle.pause({ reason: 'hold on' });
    const paused = await handle.describe();
    expect([paused.status, paused.runState]).toEqual(['PAUSED', 'PAUSED']);
    const updated = await handle.updateOptions({ startToCloseTimeout: '20s' });
    expect(updated.startToCloseTimeout).toBe(20_000);
    expect((await handle.describe()).startToCloseTimeoutMs).toBe(20_000);
    await handle.restoreOriginalOptions();
    expect((await handle.describe()).startToCloseTimeoutMs).toBe(10_000);
    await handle.unpause();
    expect((await handle.describe()).status).toBe('RUNNING');
    const worker = await startWorker(s.env, { taskQueue: idleQueue, activities });
    try {
      expect(await handle.result()).toBe(14);
    } finally {
      await worker.stop();
    }
    expect(await grpcError(handle.pause())).toEqual({
      code: FAILED_PRECONDITION,
      details: 'activity is in terminal state ACTIVITY_EXECUTION_STATUS_COMPLETED',
    });
  });

  it('completes and heartbeats by id (no workflow id) through the async completion client', async () => {
    const idleQueue = `standalone-idle-${randomUUID()}`;
    const activityId = id('by-id');
    const handle = await s.env.client.activity.start('double', {
      id: activityId,
      taskQueue: idleQueue,
      startToCloseTimeout: '10s',
      args: [1],
    });
    // Only completion takes an attempt no worker started (as for workflow activities).
    const beat = await s.env.client.activity.heartbeat({ activityId, runId: handle.runId }, 'beat').catch((e: unknown) => e);
    expect(beat).toBeInstanceOf(ActivityNotFoundError);
    await s.env.client.activity.complete({ activityId }, 'done by hand');
    expect(await handle.result()).toBe('done by hand');
    expect((await handle.describe()).lastWorkerIdentity).toBeTruthy();
  });

  it('deletes executions and refuses malformed starts as Temporal does', async () => {
    const activityId = id('delete');
    await s.env.client.activity.execute('double', options(activityId, { args: [1] }));
    const service = s.env.client.workflowService;
    await service.deleteActivityExecution({ namespace: 'default', activityId });
    expect((await grpcError(service.describeActivityExecution({ namespace: 'default', activityId }))).code).toBe(NOT_FOUND);

    const start = (extra: object) =>
      service.startActivityExecution({
        namespace: 'default',
        activityId: id('bad'),
        activityType: { name: 'double' },
        taskQueue: { name: s.taskQueue },
        requestId: randomUUID(),
        ...extra,
      });
    const noTimeout = await grpcError(start({}));
    expect(noTimeout.code).toBe(INVALID_ARGUMENT);
    expect(noTimeout.details).toMatch(
      /^a valid StartToCloseTimeout or ScheduleToCloseTimeout must be set on the activity\. ActivityId=bad-/,
    );
    expect(await grpcError(start({ activityType: {}, startToCloseTimeout: { seconds: 1 } }))).toEqual({
      code: INVALID_ARGUMENT,
      details: 'activityType is not set',
    });
    const done = await s.env.client.activity.start('double', options(id('done'), { args: [1] }));
    await done.result();
    const cancelDone = await grpcError(
      service.requestCancelActivityExecution({ namespace: 'default', activityId: done.activityId, requestId: randomUUID() }),
    );
    expect(cancelDone).toEqual({ code: FAILED_PRECONDITION, details: 'activity is in terminal state ACTIVITY_EXECUTION_STATUS_COMPLETED' });
  });
});
