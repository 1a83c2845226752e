// The time-skipping flavour (TestWorkflowEnvironment.createTimeSkipping on our server).
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { type SearchAttributes, TimeoutFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usesDownloadedServer } from '../testing.ts';
import { grpcError, type Suite, setupSuite, teardownSuite } from './helpers.ts';
import { runActivity, sleeper, timerVersusActivity, timerVersusSleepingActivity, waitForever } from './workflows/index.ts';

const DAY = 24 * 3600_000;
const scheduledAt = new Map<string, number[]>();

let s: Suite;
beforeAll(async () => {
  s = await setupSuite('time-skipping', 'skipping', {
    async flaky(key: string, failTimes: number): Promise<number> {
      const { attempt, currentAttemptScheduledTimestampMs } = Context.current().info;
      scheduledAt.set(key, [...(scheduledAt.get(key) ?? []), currentAttemptScheduledTimestampMs]);
      if (attempt <= failTimes) throw new Error(`fail attempt ${attempt}`);
      return attempt;
    },
    async slow(): Promise<string> {
      await new Promise((r) => setTimeout(r, 500));
      return 'activity';
    },
    async sleepVirtual(ms: number): Promise<string> {
      await s.env.sleep(ms);
      return 'activity';
    },
  });
});
afterAll(() => teardownSuite(s));

const wid = () => `ts-${randomUUID()}`;

describe('time skipping', () => {
  it('skips over a workflow sleeping for several days', async () => {
    const realStart = Date.now();
    const elapsed = await s.env.client.workflow.execute(sleeper, { taskQueue: s.taskQueue, workflowId: wid(), args: [3 * DAY] });
    expect(elapsed).toBeGreaterThanOrEqual(3 * DAY);
    expect(Date.now() - realStart).toBeLessThan(10_000);
  });

  // Our extension: the Java test server rejects the unbalanced unlocks concurrent result() calls make.
  it.runIf(!usesDownloadedServer())('skips for several workflows awaited concurrently', async () => {
    const realStart = Date.now();
    const results = await Promise.all(
      [1, 2, 3].map((days) => s.env.client.workflow.execute(sleeper, { taskQueue: s.taskQueue, workflowId: wid(), args: [days * DAY] })),
    );
    for (const [i, elapsed] of results.entries()) expect(elapsed).toBeGreaterThanOrEqual((i + 1) * DAY);
    expect(Date.now() - realStart).toBeLessThan(10_000);
  });

  it('advances server time with env.sleep and reports it with currentTimeMs', async () => {
    const before = await s.env.currentTimeMs();
    const realStart = Date.now();
    await s.env.sleep(2 * DAY);
    const after = await s.env.currentTimeMs();
    expect(after - before).toBeGreaterThanOrEqual(2 * DAY);
    expect(Date.now() - realStart).toBeLessThan(5_000);
  });

  it('does not skip while locked (no result being awaited)', async () => {
    const handle = await s.env.client.workflow.start(sleeper, { taskQueue: s.taskQueue, workflowId: wid(), args: [3600_000] });
    const before = await s.env.currentTimeMs();
    await new Promise((r) => setTimeout(r, 500));
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect((await s.env.currentTimeMs()) - before).toBeLessThan(60_000);
    expect(await handle.result()).toBeGreaterThanOrEqual(3600_000);
  });

  it('moves activity retry backoff with the virtual clock', async () => {
    const key = randomUUID();
    const outcome = await s.env.client.workflow.execute(runActivity, {
      taskQueue: s.taskQueue,
      workflowId: wid(),
      args: ['flaky', { startToCloseTimeout: '1 minute', retry: { initialInterval: '1 hour', backoffCoefficient: 2 } }, [key, 2]],
    });
    expect(outcome).toEqual({ ok: 3 });
    const [t1, t2, t3] = scheduledAt.get(key)!;
    expect(t2! - t1!).toBeGreaterThanOrEqual(3600_000);
    expect(t3! - t2!).toBeGreaterThanOrEqual(2 * 3600_000);
  });

  it('fails an activity whose next retry would pass its schedule-to-close deadline', async () => {
    const outcome = await s.env.client.workflow.execute(runActivity, {
      taskQueue: s.taskQueue,
      workflowId: wid(),
      args: [
        'flaky',
        { scheduleToCloseTimeout: '3 days', startToCloseTimeout: '1 minute', retry: { initialInterval: '1 day' } },
        [randomUUID(), 100],
      ],
    });
    expect(outcome).toMatchObject({ cause: 'fail attempt 2', retryState: 'TIMEOUT' });
  });

  it('does not skip time while an activity is running', async () => {
    const winner = await s.env.client.workflow.execute(timerVersusActivity, {
      taskQueue: s.taskQueue,
      workflowId: wid(),
      args: [3600_000],
    });
    expect(winner).toBe('activity');
  });

  // As the Java test server: a running activity holds a lock, which its own env.sleep releases.
  it.each([
    { timerDays: 15, sleepDays: 10, winner: 'activity' },
    { timerDays: 10, sleepDays: 15, winner: 'timer' },
  ])('skips while an activity sleeps with env.sleep ($winner first)', async ({ timerDays, sleepDays, winner }) => {
    const realStart = Date.now();
    const before = await s.env.currentTimeMs();
    const result = await s.env.client.workflow.execute(timerVersusSleepingActivity, {
      taskQueue: s.taskQueue,
      workflowId: wid(),
      args: [timerDays * DAY, sleepDays * DAY],
    });
    expect(result).toBe(winner);
    expect((await s.env.currentTimeMs()) - before).toBeGreaterThanOrEqual(sleepDays * DAY);
    expect(Date.now() - realStart).toBeLessThan(30_000);
  });

  it('times out a workflow run in virtual time', async () => {
    const err = await s.env.client.workflow
      .execute(waitForever, { taskQueue: s.taskQueue, workflowId: wid(), workflowRunTimeout: '1 day' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(TimeoutFailure);
  });

  it("knows the Java test server's custom search attributes and refuses others", async () => {
    const start = (searchAttributes: SearchAttributes) =>
      s.env.client.workflow.start(waitForever, { taskQueue: s.taskQueue, workflowId: wid(), searchAttributes });
    const handle = await start({ CustomKeywordField: ['kw'], CustomStringField: ['some text'], CustomDatetimeField: [new Date()] });
    expect((await handle.describe()).searchAttributes.CustomKeywordField).toEqual(['kw']);
    await handle.terminate();
    expect(await grpcError(start({ NotRegistered: ['x'] }))).toMatchObject({
      code: 3,
      details: 'search attribute NotRegistered is not defined',
    });
  });
});
