// Activity semantics: retries and backoff, non-retryable failures, the four timeouts, heartbeats
// with details, cancellation through heartbeats, and retry after a worker crash.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompleteAsyncError, Context } from '@temporalio/activity';
import { ActivityNotFoundError, Client } from '@temporalio/client';
import type { ActivityOptions } from '@temporalio/common';
import { ApplicationFailure, defaultPayloadConverter, NamespaceNotFoundError } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, eventually, grpcError, type Suite, setupSuite, teardownSuite } from './helpers.ts';
import { cancelActivityAfter, runActivity } from './workflows/index.ts';

const attemptsSeen = new Map<string, number[]>();
/** Activities left for the test to complete asynchronously, by a key the test chooses. */
const asyncTasks = new Map<string, { taskToken: Uint8Array; workflowId: string; activityId: string }>();
let cancelObserved = false;

const activities = {
  async flaky(key: string, failTimes: number): Promise<number> {
    const { attempt, currentAttemptScheduledTimestampMs } = Context.current().info;
    attemptsSeen.set(key, [...(attemptsSeen.get(key) ?? []), currentAttemptScheduledTimestampMs]);
    if (attempt <= failTimes) throw new Error(`fail attempt ${attempt}`);
    return attempt;
  },
  async fatal(key: string, type: string): Promise<never> {
    attemptsSeen.set(key, [...(attemptsSeen.get(key) ?? []), Context.current().info.attempt]);
    throw ApplicationFailure.create({ message: 'fatal error', type });
  },
  async stall(ms: number): Promise<string> {
    await Context.current().sleep(ms);
    return 'finished';
  },
  async heartbeatThenStall(): Promise<string> {
    const ctx = Context.current();
    if (ctx.info.attempt === 1) {
      ctx.heartbeat('progress-1');
      await ctx.sleep(30_000);
    }
    return `attempt ${ctx.info.attempt} resumed from ${String(ctx.info.heartbeatDetails)}`;
  },
  async completeLater(key: string): Promise<never> {
    const { taskToken, workflowExecution, activityId } = Context.current().info;
    asyncTasks.set(key, { taskToken, workflowId: workflowExecution?.workflowId ?? '', activityId });
    throw new CompleteAsyncError();
  },
  async heartbeatUntilCancelled(): Promise<string> {
    const ctx = Context.current();
    try {
      for (;;) {
        ctx.heartbeat();
        await ctx.sleep(100);
      }
    } catch (err) {
      cancelObserved = true;
      throw err;
    }
  },
};

let s: Suite;
beforeAll(async () => {
  s = await setupSuite('local', 'activities', activities);
});
afterAll(() => teardownSuite(s));

const run = (name: string, options: ActivityOptions, args: unknown[] = []) =>
  s.env.client.workflow.execute(runActivity, { taskQueue: s.taskQueue, workflowId: `act-${randomUUID()}`, args: [name, options, args] });

describe('retries', () => {
  it('retries with exponential backoff until success', async () => {
    const key = randomUUID();
    const outcome = await run('flaky', { startToCloseTimeout: '5s', retry: { initialInterval: '100ms', backoffCoefficient: 2 } }, [key, 2]);
    expect(outcome).toEqual({ ok: 3 });
    const [t1, t2, t3] = attemptsSeen.get(key)!;
    expect(t2! - t1!).toBeGreaterThanOrEqual(100);
    expect(t3! - t2!).toBeGreaterThanOrEqual(200);
  });

  it('gives up after maximum attempts with the last failure', async () => {
    const outcome = await run('flaky', { startToCloseTimeout: '5s', retry: { initialInterval: '10ms', maximumAttempts: 3 } }, [
      randomUUID(),
      10,
    ]);
    expect(outcome).toMatchObject({ cause: 'fail attempt 3', retryState: 'MAXIMUM_ATTEMPTS_REACHED' });
  });

  it('does not retry non-retryable error types', async () => {
    const key = randomUUID();
    const outcome = await run(
      'fatal',
      { startToCloseTimeout: '5s', retry: { initialInterval: '10ms', nonRetryableErrorTypes: ['Fatal'] } },
      [key, 'Fatal'],
    );
    expect(outcome).toMatchObject({ cause: 'fatal error', causeType: 'Fatal', retryState: 'NON_RETRYABLE_FAILURE' });
    expect(attemptsSeen.get(key)).toEqual([1]);
  });

  it('writes one ActivityTaskStarted for the final attempt only', async () => {
    const handle = await s.env.client.workflow.start(runActivity, {
      taskQueue: s.taskQueue,
      workflowId: `act-${randomUUID()}`,
      args: ['flaky', { startToCloseTimeout: '5s', retry: { initialInterval: '10ms' } }, [randomUUID(), 2]],
    });
    await handle.result();
    const events = (await handle.fetchHistory()).events ?? [];
    const started = events.filter((e) => e.activityTaskStartedEventAttributes);
    expect(started).toHaveLength(1);
    expect(started[0]!.activityTaskStartedEventAttributes!.attempt).toBe(3);
    expect(started[0]!.activityTaskStartedEventAttributes!.lastFailure?.message).toBe('fail attempt 2');
  });
});

describe('timeouts', () => {
  it('times out start-to-close and retries up to the limit', async () => {
    const outcome = await run('stall', { startToCloseTimeout: '300ms', retry: { initialInterval: '10ms', maximumAttempts: 2 } }, [10_000]);
    expect(outcome).toMatchObject({ timeoutType: 'START_TO_CLOSE', retryState: 'MAXIMUM_ATTEMPTS_REACHED' });
  });

  it('times out schedule-to-close', async () => {
    const outcome = await run('stall', { scheduleToCloseTimeout: '700ms', retry: { initialInterval: '10ms' } }, [10_000]);
    expect(outcome).toMatchObject({ timeoutType: 'SCHEDULE_TO_CLOSE', retryState: 'TIMEOUT' });
  });

  it('times out schedule-to-start when no worker polls the queue', async () => {
    const outcome = await run(
      'stall',
      { taskQueue: `nobody-${randomUUID()}`, scheduleToStartTimeout: '300ms', startToCloseTimeout: '5s' },
      [1],
    );
    expect(outcome).toMatchObject({ timeoutType: 'SCHEDULE_TO_START' });
  });

  it('times out on missed heartbeats and hands the last details to the retry', async () => {
    const outcome = await run('heartbeatThenStall', {
      startToCloseTimeout: '20s',
      heartbeatTimeout: '500ms',
      retry: { initialInterval: '10ms', maximumAttempts: 2 },
    });
    expect(outcome).toEqual({ ok: 'attempt 2 resumed from progress-1' });
  });
});

describe('cancellation', () => {
  it('delivers cancellation to a running activity through its heartbeat', async () => {
    cancelObserved = false;
    const handle = await s.env.client.workflow.start(cancelActivityAfter, {
      taskQueue: s.taskQueue,
      workflowId: `cancel-act-${randomUUID()}`,
      args: [300],
    });
    expect(await handle.result()).toBe('activity cancelled');
    expect(cancelObserved).toBe(true);
    const types = eventTypes((await handle.fetchHistory()).events);
    expect(types).toContain('ACTIVITY_TASK_CANCEL_REQUESTED');
    expect(types).toContain('ACTIVITY_TASK_CANCELED');
  });
});

describe('asynchronous completion', () => {
  it('completes an activity later by task token, with heartbeats in between', async () => {
    const key = randomUUID();
    const outcome = run('completeLater', { startToCloseTimeout: '30s', heartbeatTimeout: '10s' }, [key]);
    const task = await eventually(async () => asyncTasks.get(key));
    await s.env.client.activity.heartbeat(task.taskToken, 'still working');
    const pending = (await s.env.client.workflow.getHandle(task.workflowId).describe()).raw.pendingActivities ?? [];
    expect(pending.map((p) => [p.activityId, p.activityType?.name, p.attempt])).toEqual([[task.activityId, 'completeLater', 1]]);
    expect(pending[0]!.state).toBe(temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED);
    expect(defaultPayloadConverter.fromPayload(pending[0]!.heartbeatDetails!.payloads![0]!)).toBe('still working');
    await s.env.client.activity.complete(task.taskToken, 'done by token');
    expect(await outcome).toEqual({ ok: 'done by token' });
    await expect(s.env.client.activity.complete(task.taskToken, 'again')).rejects.toThrow();
  });

  it('completes or fails an activity by workflow and activity id', async () => {
    const okKey = randomUUID();
    const ok = run('completeLater', { startToCloseTimeout: '30s' }, [okKey]);
    const okTask = await eventually(async () => asyncTasks.get(okKey));
    await s.env.client.activity.complete({ workflowId: okTask.workflowId, activityId: okTask.activityId }, 'done by id');
    expect(await ok).toEqual({ ok: 'done by id' });

    const failKey = randomUUID();
    const failed = run('completeLater', { startToCloseTimeout: '30s', retry: { maximumAttempts: 1 } }, [failKey]);
    const failTask = await eventually(async () => asyncTasks.get(failKey));
    await s.env.client.activity.fail({ workflowId: failTask.workflowId, activityId: failTask.activityId }, new Error('failed by id'));
    expect(await failed).toMatchObject({ cause: 'failed by id', retryState: 'MAXIMUM_ATTEMPTS_REACHED' });
  });
});

/**
 * An activity task token in Temporal's own format (protobuf `temporal.server.api.token.v1.Task`:
 * namespace id, workflow id, run id, scheduled event id, attempt, activity id), as Temporal's
 * sdk-typescript tests make one for a task that does not exist.
 */
function temporalTaskToken(namespaceId: string): Uint8Array {
  const text = (field: number, value: string) => [field * 8 + 2, Buffer.byteLength(value), ...Buffer.from(value)];
  return new Uint8Array([...text(1, namespaceId), ...text(2, randomUUID()), ...text(3, randomUUID()), 4 * 8, 5, 5 * 8, 1, ...text(6, '1')]);
}

describe('asynchronous completion of a task that does not exist', () => {
  it('answers a token in Temporal’s format NOT_FOUND (ActivityNotFoundError), an unknown namespace id NOT_FOUND, garbage INVALID_ARGUMENT', async () => {
    const { namespaceInfo } = await s.env.client.workflowService.describeNamespace({ namespace: 'default' });
    const token = temporalTaskToken(namespaceInfo!.id!);
    await expect(s.env.client.activity.complete(token, 'success')).rejects.toBeInstanceOf(ActivityNotFoundError);
    await expect(s.env.client.activity.fail(token, new Error('failure'))).rejects.toBeInstanceOf(ActivityNotFoundError);
    await expect(s.env.client.activity.reportCancellation(token, 'cancelled')).rejects.toBeInstanceOf(ActivityNotFoundError);
    const unknownNamespace = temporalTaskToken(randomUUID());
    expect(await grpcError(s.env.client.workflowService.respondActivityTaskCompleted({ taskToken: unknownNamespace }))).toMatchObject({
      code: 5,
    });
    expect(await grpcError(s.env.client.workflowService.respondActivityTaskCompleted({ taskToken: Buffer.from([0xff, 0xff]) }))).toEqual({
      code: 3,
      details: 'Error deserializing task token.',
    });
  });

  it('answers a client of an unknown namespace NamespaceNotFoundError whatever the token (SDK test "AsyncCompletionClient - namespace not found")', async () => {
    const elsewhere = new Client({ connection: s.env.connection, namespace: 'non-existent' });
    const outcome = elsewhere.activity.complete(new Uint8Array([1]), 'result');
    await expect(outcome).rejects.toBeInstanceOf(NamespaceNotFoundError);
    await expect(outcome).rejects.toThrow("Namespace not found: 'non-existent'");
  });
});

describe('worker crash', () => {
  it('retries an activity whose worker died after its side effect, with a stable idempotency key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'temporal-dev-crash-'));
    const file = join(dir, 'side-effects.log');
    const activityQueue = `crash-${randomUUID()}`;
    const script = fileURLToPath(new URL('./crash-worker.ts', import.meta.url));
    const child = spawn(process.execPath, [script, s.env.address, activityQueue, file], { stdio: 'inherit' });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      const handle = await s.env.client.workflow.start(runActivity, {
        taskQueue: s.taskQueue,
        workflowId: `crash-${randomUUID()}`,
        args: ['sideEffect', { taskQueue: activityQueue, startToCloseTimeout: '2s', retry: { initialInterval: '10ms' } }, []],
      });
      await eventually(async () => existsSync(file) && readFileSync(file, 'utf8').includes('attempt=1'), 30_000);
      child.kill('SIGKILL');
      await exited;

      const replacement = await Worker.create({
        connection: s.env.nativeConnection,
        taskQueue: activityQueue,
        activities: {
          async sideEffect(): Promise<string> {
            const { workflowExecution, activityId, attempt } = Context.current().info;
            const key = `${workflowExecution?.workflowId}/${activityId}`;
            appendFileSync(file, `${key} attempt=${attempt}\n`);
            return key;
          },
        },
      });
      const outcome = await replacement.runUntil(handle.result());
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(2);
      const [first, second] = lines.map((l) => l.split(' ')) as [[string, string], [string, string]];
      expect(second[0]).toBe(first[0]);
      expect(outcome).toEqual({ ok: first[0] });
      expect([first[1], second[1]]).toEqual(['attempt=1', 'attempt=2']);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
