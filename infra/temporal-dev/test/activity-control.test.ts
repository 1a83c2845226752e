// PauseActivity, UnpauseActivity, ResetActivity and UpdateActivityOptions on a workflow's pending
// activities. SDK 1.24 has no client API for these (its ActivityClient pauses standalone
// activities), so they are raw WorkflowService calls; what a running activity sees is the SDK's
// own `Context.cancellationDetails` (paused / reset) after a heartbeat.
import { randomUUID } from 'node:crypto';
import { CancelledFailure, Context } from '@temporalio/activity';
import type { ActivityOptions } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, grpcError, type Suite, setupSuite, startWorker, teardownSuite } from './helpers.ts';
import { runActivity } from './workflows/index.ts';

const { PendingActivityState } = temporal.api.enums.v1;
const NOT_FOUND = 5;
const INVALID_ARGUMENT = 3;
const FAILED_PRECONDITION = 9;
const ACTIVITY_ID = 'the-activity';

/** Per test key: the attempts an activity ran and how each ended. */
const runs = new Map<string, Array<{ attempt: number; heartbeatDetails: unknown; paused?: boolean; reset?: boolean }>>();
/** Keys whose activity may now succeed. */
const released = new Set<string>();

const record = (key: string) => {
  const { attempt, heartbeatDetails } = Context.current().info;
  const entry: { attempt: number; heartbeatDetails: unknown; paused?: boolean; reset?: boolean } = { attempt, heartbeatDetails };
  runs.set(key, [...(runs.get(key) ?? []), entry]);
  return entry;
};

const activities = {
  /** Heartbeats until released or cancelled (by pause or reset), noting why it was cancelled. */
  async heartbeatLoop(key: string): Promise<number> {
    const entry = record(key);
    const ctx = Context.current();
    try {
      while (!released.has(key)) {
        ctx.heartbeat(`progress of ${entry.attempt}`);
        await ctx.sleep(100);
      }
      return entry.attempt;
    } catch (err) {
      if (err instanceof CancelledFailure) {
        entry.paused = ctx.cancellationDetails?.paused;
        entry.reset = ctx.cancellationDetails?.reset;
      }
      throw err;
    }
  },
  /** Heartbeats once, then fails until released. */
  async failUntilReleased(key: string): Promise<{ attempt: number; details: unknown }> {
    const entry = record(key);
    Context.current().heartbeat(`details of ${entry.attempt}`);
    if (!released.has(key)) throw new Error(`attempt ${entry.attempt} failed`);
    return { attempt: entry.attempt, details: entry.heartbeatDetails };
  },
  async quick(key: string): Promise<{ attempt: number; startToCloseMs: number }> {
    const entry = record(key);
    return { attempt: entry.attempt, startToCloseMs: Context.current().info.startToCloseTimeoutMs };
  },
};

let s: Suite;
beforeAll(async () => {
  s = await setupSuite('local', 'activity-control', activities);
});
afterAll(() => teardownSuite(s));

const start = (name: string, options: ActivityOptions, key: string) =>
  s.env.client.workflow.start(runActivity, {
    taskQueue: s.taskQueue,
    workflowId: `act-ctl-${randomUUID()}`,
    args: [name, { activityId: ACTIVITY_ID, ...options }, [key]],
  });

const svc = () => s.env.client.workflowService;
const pending = async (workflowId: string) => {
  const d = await svc().describeWorkflowExecution({ namespace: 'default', execution: { workflowId } });
  return d.pendingActivities?.[0];
};

describe('PauseActivity / UnpauseActivity', () => {
  it('pauses a running activity through its heartbeat, holds the retry, and runs it again on unpause', async () => {
    const key = randomUUID();
    const handle = await start(
      'heartbeatLoop',
      { startToCloseTimeout: '30s', heartbeatTimeout: '1s', retry: { initialInterval: '10ms' } },
      key,
    );
    await eventually(async () => runs.get(key)?.length === 1);
    await svc().pauseActivity({
      namespace: 'default',
      execution: { workflowId: handle.workflowId },
      id: ACTIVITY_ID,
      identity: 'operator',
      reason: 'maintenance',
      requestId: 'pause-1',
    });
    // The worker learns of the pause from a heartbeat response and stops the attempt.
    await eventually(async () => runs.get(key)![0]!.paused === true);
    const paused = await eventually(async () => {
      const p = await pending(handle.workflowId);
      return p?.state === PendingActivityState.PENDING_ACTIVITY_STATE_PAUSED && p;
    });
    expect(paused.paused).toBe(true);
    expect(paused.attempt).toBe(2);
    expect(paused.lastFailure?.message).toBe('Activity paused');
    expect(paused.pauseInfo?.manual).toEqual({ identity: 'operator', reason: 'maintenance' });
    expect(Number(paused.pauseInfo?.pauseTime?.seconds)).toBeGreaterThan(0);

    // The same request again is a no-op; another pause is refused.
    await svc().pauseActivity({
      namespace: 'default',
      execution: { workflowId: handle.workflowId },
      id: ACTIVITY_ID,
      requestId: 'pause-1',
    });
    expect(
      await grpcError(
        svc().pauseActivity({ namespace: 'default', execution: { workflowId: handle.workflowId }, id: ACTIVITY_ID, requestId: 'pause-2' }),
      ),
    ).toEqual({ code: FAILED_PRECONDITION, details: 'activity is already paused' });

    // Retry backoff was 10 ms: had it not been held, attempt 2 would have run by now.
    await new Promise((r) => setTimeout(r, 1000));
    expect(runs.get(key)).toHaveLength(1);

    released.add(key);
    await svc().unpauseActivity({ namespace: 'default', execution: { workflowId: handle.workflowId }, id: ACTIVITY_ID });
    expect(await handle.result()).toEqual({ ok: 2 });
    expect(runs.get(key)![1]).toMatchObject({ attempt: 2, heartbeatDetails: 'progress of 1' });
  });

  it('pauses a queued activity by type: not dispatched, and its schedule-to-close timeout waits for the unpause', async () => {
    const key = randomUUID();
    const queue = `later-${randomUUID()}`;
    const handle = await start('quick', { taskQueue: queue, scheduleToCloseTimeout: '1500ms' }, key);
    await eventually(async () => (await pending(handle.workflowId))?.activityId === ACTIVITY_ID);
    await svc().pauseActivity({ namespace: 'default', execution: { workflowId: handle.workflowId }, type: 'quick' });
    const worker = await startWorker(s.env, { taskQueue: queue, activities });
    try {
      await new Promise((r) => setTimeout(r, 2000));
      expect(runs.get(key)).toBeUndefined();
      expect((await pending(handle.workflowId))?.state).toBe(PendingActivityState.PENDING_ACTIVITY_STATE_PAUSED);
      // Its schedule-to-close deadline passed while paused: it fires once unpaused.
      await svc().unpauseActivity({ namespace: 'default', execution: { workflowId: handle.workflowId }, type: 'quick' });
      expect(await handle.result()).toMatchObject({ timeoutType: 'SCHEDULE_TO_CLOSE' });
    } finally {
      await worker.stop();
    }
  });

  it('unpauses all with reset attempts and jitter: a held retry runs at once, as attempt 1', async () => {
    const key = randomUUID();
    const handle = await start('failUntilReleased', { startToCloseTimeout: '10s', retry: { initialInterval: '1h' } }, key);
    await eventually(async () => (await pending(handle.workflowId))?.attempt === 2);
    await svc().pauseActivity({ namespace: 'default', execution: { workflowId: handle.workflowId }, id: ACTIVITY_ID });
    released.add(key);
    const before = Date.now();
    await svc().unpauseActivity({
      namespace: 'default',
      execution: { workflowId: handle.workflowId },
      unpauseAll: true,
      resetAttempts: true,
      jitter: msToTs(1000),
    });
    expect(await handle.result()).toEqual({ ok: { attempt: 1, details: 'details of 1' } });
    expect(Date.now() - before).toBeLessThan(5000);
  });

  it('refuses bad targets as Temporal does', async () => {
    const key = randomUUID();
    const handle = await start('quick', { taskQueue: `nobody-${randomUUID()}`, startToCloseTimeout: '10s' }, key);
    await eventually(async () => (await pending(handle.workflowId))?.activityId === ACTIVITY_ID);
    const execution = { workflowId: handle.workflowId };
    expect(await grpcError(svc().pauseActivity({ namespace: 'default', execution, id: 'no-such-activity' }))).toEqual({
      code: NOT_FOUND,
      details: "Can't find pending activity with such ID. Invalid activityID or activity already completed",
    });
    expect(await grpcError(svc().unpauseActivity({ namespace: 'default', execution, type: 'noSuchType' }))).toMatchObject({
      code: NOT_FOUND,
    });
    expect(await grpcError(svc().pauseActivity({ namespace: 'default', execution }))).toEqual({
      code: INVALID_ARGUMENT,
      details: 'Either Activity.Id or Activity.Type should be set on request.',
    });
    expect(await grpcError(svc().resetActivity({ namespace: 'default', execution: {}, id: ACTIVITY_ID }))).toEqual({
      code: INVALID_ARGUMENT,
      details: 'WorkflowId is not set on request.',
    });
    // Unpausing an activity that is not paused changes nothing.
    await svc().unpauseActivity({ namespace: 'default', execution, id: ACTIVITY_ID, resetAttempts: true });
    expect((await pending(handle.workflowId))?.paused).toBeFalsy();
    await handle.terminate();
    expect(await grpcError(svc().pauseActivity({ namespace: 'default', execution, id: ACTIVITY_ID }))).toEqual({
      code: NOT_FOUND,
      details: 'workflow execution already completed',
    });
  });
});

describe('ResetActivity', () => {
  it('restarts an activity in retry backoff at attempt 1 at once, keeping its heartbeat details', async () => {
    const key = randomUUID();
    const handle = await start('failUntilReleased', { startToCloseTimeout: '10s', retry: { initialInterval: '1h' } }, key);
    await eventually(async () => (await pending(handle.workflowId))?.attempt === 2);
    released.add(key);
    await svc().resetActivity({ namespace: 'default', execution: { workflowId: handle.workflowId }, id: ACTIVITY_ID });
    expect(await handle.result()).toEqual({ ok: { attempt: 1, details: 'details of 1' } });
  });

  it('drops the heartbeat details with resetHeartbeat', async () => {
    const key = randomUUID();
    const handle = await start('failUntilReleased', { startToCloseTimeout: '10s', retry: { initialInterval: '1h' } }, key);
    await eventually(async () => (await pending(handle.workflowId))?.attempt === 2);
    released.add(key);
    await svc().resetActivity({
      namespace: 'default',
      execution: { workflowId: handle.workflowId },
      type: 'failUntilReleased',
      resetHeartbeat: true,
    });
    expect(await handle.result()).toEqual({ ok: { attempt: 1, details: undefined } });
  });

  it('tells a running attempt through its heartbeat; the attempts start over', async () => {
    const key = randomUUID();
    const handle = await start(
      'heartbeatLoop',
      { startToCloseTimeout: '30s', heartbeatTimeout: '1s', retry: { initialInterval: '10ms' } },
      key,
    );
    await eventually(async () => runs.get(key)?.length === 1);
    await svc().resetActivity({ namespace: 'default', execution: { workflowId: handle.workflowId }, matchAll: true });
    expect((await pending(handle.workflowId))?.attempt).toBe(1);
    await eventually(async () => runs.get(key)![0]!.reset === true);
    released.add(key);
    // The reset attempt failed as attempt 1, so the next one is attempt 2.
    expect(await handle.result()).toEqual({ ok: 2 });
  });

  it('leaves a running attempt paused: its heartbeats say both paused and reset', async () => {
    const key = randomUUID();
    const handle = await start(
      'heartbeatLoop',
      { startToCloseTimeout: '30s', heartbeatTimeout: '1s', retry: { initialInterval: '10ms' } },
      key,
    );
    await eventually(async () => runs.get(key)?.length === 1);
    const execution = { workflowId: handle.workflowId };
    await svc().pauseActivity({ namespace: 'default', execution, id: ACTIVITY_ID });
    await svc().resetActivity({ namespace: 'default', execution, id: ACTIVITY_ID });
    await eventually(async () => runs.get(key)![0]!.reset !== undefined);
    expect(runs.get(key)![0]).toMatchObject({ paused: true, reset: true });
    expect((await pending(handle.workflowId))?.paused).toBe(true);
    released.add(key);
    await svc().unpauseActivity({ namespace: 'default', execution, id: ACTIVITY_ID });
    // The cancelled attempt 1 counted, so the one after the unpause is attempt 2.
    expect(await handle.result()).toEqual({ ok: 2 });
  });

  it('keeps a paused activity paused with keepPaused, and unpauses it otherwise', async () => {
    const key = randomUUID();
    const handle = await start('failUntilReleased', { startToCloseTimeout: '10s', retry: { initialInterval: '1h' } }, key);
    await eventually(async () => (await pending(handle.workflowId))?.attempt === 2);
    const execution = { workflowId: handle.workflowId };
    await svc().pauseActivity({ namespace: 'default', execution, id: ACTIVITY_ID });
    await svc().resetActivity({ namespace: 'default', execution, id: ACTIVITY_ID, keepPaused: true });
    const kept = await pending(handle.workflowId);
    expect([kept?.paused, kept?.attempt, kept?.state]).toEqual([true, 1, PendingActivityState.PENDING_ACTIVITY_STATE_PAUSED]);
    released.add(key);
    await svc().resetActivity({ namespace: 'default', execution, id: ACTIVITY_ID });
    expect(await handle.result()).toEqual({ ok: { attempt: 1, details: 'details of 1' } });
  });
});

describe('UpdateActivityOptions', () => {
  it('moves a queued activity to another task queue with a new timeout, and restores the originals', async () => {
    const key = randomUUID();
    const handle = await start('quick', { taskQueue: `nobody-${randomUUID()}`, startToCloseTimeout: '10s' }, key);
    await eventually(async () => (await pending(handle.workflowId))?.activityId === ACTIVITY_ID);
    const execution = { workflowId: handle.workflowId };
    const restored = await svc().updateActivityOptions({ namespace: 'default', execution, id: ACTIVITY_ID, restoreOriginal: true });
    expect(restored.activityOptions?.startToCloseTimeout?.seconds?.toString()).toBe('10');

    const updated = await svc().updateActivityOptions({
      namespace: 'default',
      execution,
      id: ACTIVITY_ID,
      activityOptions: { taskQueue: { name: s.taskQueue }, startToCloseTimeout: msToTs(7000) },
      updateMask: { paths: ['task_queue.name', 'start_to_close_timeout'] },
    });
    expect(updated.activityOptions?.taskQueue?.name).toBe(s.taskQueue);
    // Filled as Temporal fills them: no schedule-to-close, so schedule-to-start stays unset.
    expect(updated.activityOptions?.startToCloseTimeout?.seconds?.toString()).toBe('7');
    expect(await handle.result()).toEqual({ ok: { attempt: 1, startToCloseMs: 7000 } });
  });

  it('refuses invalid updates and changes nothing', async () => {
    const handle = await start('quick', { taskQueue: `nobody-${randomUUID()}`, startToCloseTimeout: '10s' }, randomUUID());
    await eventually(async () => (await pending(handle.workflowId))?.activityId === ACTIVITY_ID);
    const execution = { workflowId: handle.workflowId };
    const call = (request: object) =>
      grpcError(svc().updateActivityOptions({ namespace: 'default', execution, id: ACTIVITY_ID, ...request }));
    expect(await call({ restoreOriginal: true, updateMask: { paths: ['start_to_close_timeout'] } })).toEqual({
      code: INVALID_ARGUMENT,
      details: 'Both UpdateMask and RestoreOriginal are provided',
    });
    expect(await call({ activityOptions: { startToCloseTimeout: msToTs(3000) } })).toEqual({
      code: INVALID_ARGUMENT,
      details: 'UpdateMask is not provided',
    });
    expect(
      await call({
        activityOptions: { retryPolicy: { backoffCoefficient: 0.5 } },
        updateMask: { paths: ['retry_policy.backoff_coefficient'] },
      }),
    ).toEqual({ code: INVALID_ARGUMENT, details: 'BackoffCoefficient cannot be less than 1 on retry policy.' });
    expect(await call({ activityOptions: { startToCloseTimeout: msToTs(0) }, updateMask: { paths: ['start_to_close_timeout'] } })).toEqual({
      code: INVALID_ARGUMENT,
      details: 'a valid StartToCloseTimeout or ScheduleToCloseTimeout must be set on the activity.',
    });
    // A valid update answers the options as they now are: the refused ones left no trace.
    const after = await svc().updateActivityOptions({
      namespace: 'default',
      execution,
      id: ACTIVITY_ID,
      activityOptions: { heartbeatTimeout: msToTs(2000) },
      updateMask: { paths: ['heartbeat_timeout'] },
    });
    expect(after.activityOptions?.retryPolicy?.backoffCoefficient).toBe(2);
    expect(after.activityOptions?.startToCloseTimeout?.seconds?.toString()).toBe('10');
    expect(after.activityOptions?.heartbeatTimeout?.seconds?.toString()).toBe('2');
    await handle.terminate();
  });
});
