import { constants, getPriority } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { WorkerPool, WorkerTimeoutError } from '../../../domain/threads/worker-pool.ts';

type Job = { busyMs?: number; sleepMs?: number; fail?: boolean; value?: unknown; priority?: boolean };
const ECHO = new URL('./fixtures/echo-worker.ts', import.meta.url);
const pool = (size: number, timeLimitMs = 5000) => new WorkerPool<Job, unknown>({ script: ECHO, size, timeLimitMs });

describe('WorkerPool', () => {
  it('answers each job from a thread', async () => {
    const threads = pool(2);
    expect(await Promise.all([1, 2, 3, 4, 5].map((value) => threads.run({ value })))).toEqual([1, 2, 3, 4, 5]);
  });

  it('serves tenants in turn: a company with many jobs waiting delays another’s by one job, not by all of its own', async () => {
    const threads = pool(1);
    await threads.run({});
    const order: string[] = [];
    const job = (tenant: string, value: string) => threads.run({ value }, tenant).then((v) => order.push(v as string));
    const flood = ['a1', 'a2', 'a3', 'a4', 'a5'].map((v) => job('company:a', v));
    const other = [job('company:b', 'b1'), job('company:b', 'b2'), job('company:c', 'c1')];
    await Promise.all([...flood, ...other]);
    // a1 took the free thread at once; then each tenant with jobs waiting, in the order it came.
    expect(order).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'a4', 'a5']);
  });

  it('runs its threads at the lowest scheduling priority and leaves the event loop its own (hostile work ran at the same priority as every request)', async () => {
    const before = getPriority();
    expect(await pool(1).run({ priority: true })).toBe(constants.priority.PRIORITY_LOW);
    expect(getPriority()).toBe(before);
  });

  it('leaves the event loop free while a job runs', async () => {
    const threads = pool(1);
    const running = threads.run({ busyMs: 1000, value: 'done' });
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(performance.now() - started).toBeLessThan(500);
    expect(await running).toBe('done');
  });

  it('runs at most `size` jobs at once; the others wait', async () => {
    const threads = pool(1);
    const started = performance.now();
    await Promise.all([threads.run({ busyMs: 300 }), threads.run({ busyMs: 300 })]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(600);
  });

  it('stops a job past the time limit by ending its thread, and serves the next job on a new one', async () => {
    // A limit well above a thread's start-up on a loaded machine (start-up counts against a new
    // thread's first job); the job would run 60 s, twice the test's own timeout, so a rejection
    // within the test proves the thread was ended.
    const threads = pool(1, 3000);
    await expect(threads.run({ busyMs: 60_000 })).rejects.toBeInstanceOf(WorkerTimeoutError);
    expect(await threads.run({ value: 'next' })).toBe('next');
  });

  it('counts CPU time, not time spent without a core: a job blocked past its limit finishes, up to six times the limit', async () => {
    const threads = pool(1, 400);
    await threads.run({});
    expect(await threads.run({ sleepMs: 800, value: 'blocked, not busy' })).toBe('blocked, not busy');
    await expect(threads.run({ sleepMs: 60_000 })).rejects.toBeInstanceOf(WorkerTimeoutError);
  });

  it('does not count waiting for a thread against the time limit', async () => {
    const threads = pool(1, 700);
    // Started first: a new thread's start-up counts against its first job.
    await threads.run({});
    // The last job waits 900 ms and runs 300 ms.
    const results = await Promise.all([1, 2, 3, 4].map((value) => threads.run({ busyMs: 300, value })));
    expect(results).toEqual([1, 2, 3, 4]);
  });

  it('counts the jobs its threads are working on (a waiting job is not one)', async () => {
    const threads = pool(1);
    expect(threads.running).toBe(0);
    const jobs = [threads.run({ busyMs: 100, value: 1 }), threads.run({ value: 2 })];
    expect(threads.running).toBe(1);
    expect(await Promise.all(jobs)).toEqual([1, 2]);
    expect(threads.running).toBe(0);
    await expect(threads.run({ fail: true })).rejects.toThrow();
    expect(threads.running).toBe(0);
  });

  it('rejects the job whose thread fails, and serves the next job', async () => {
    const threads = pool(1);
    await expect(threads.run({ fail: true })).rejects.toThrow('the job failed');
    expect(await threads.run({ value: 'next' })).toBe('next');
  });

  it('ends a thread left idle (its memory goes back) and starts a new one for the next job', async () => {
    const threads = new WorkerPool<Job, unknown>({ script: ECHO, size: 1, timeLimitMs: 5000, idleMs: 50 });
    expect(await threads.run({ value: 1 })).toBe(1);
    expect(threads.threads).toBe(1);
    await vi.waitFor(() => expect(threads.threads).toBe(0), { timeout: 10_000, interval: 20 });
    expect(await threads.run({ value: 2 })).toBe(2);
    expect(threads.threads).toBe(1);
  });

  it('does not end a thread that took a job within its idle time while the job runs', async () => {
    const threads = new WorkerPool<Job, unknown>({ script: ECHO, size: 1, timeLimitMs: 5000, idleMs: 300 });
    expect(await threads.run({ value: 1 })).toBe(1);
    // Runs well past the first job's idle timer: ended, the thread would fail this job.
    expect(await threads.run({ busyMs: 1000, value: 2 })).toBe(2);
  });
});
