import { constants, getPriority } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../../domain/errors.ts';
import { ThreadChannel } from '../../../domain/threads/thread-channel.ts';
import type { ChannelCall } from './fixtures/channel-thread.ts';

const channel = new ThreadChannel<ChannelCall, unknown>(new URL('./fixtures/channel-thread.ts', import.meta.url));
afterAll(() => channel.close());

describe('ThreadChannel', () => {
  it('serves many calls at once on one thread, each answered by its own id', async () => {
    const answers = await Promise.all([30, 10, 20, 0].map((waitMs, i) => channel.call({ waitMs, value: i })));
    expect(answers).toEqual([0, 1, 2, 3]);
  });

  it('runs its thread at the lowest scheduling priority and leaves the event loop its own', async () => {
    const before = getPriority();
    expect(await channel.call({ priority: true })).toBe(constants.priority.PRIORITY_LOW);
    expect(getPriority()).toBe(before);
  });

  it("hands the caller's abort to the call inside the thread", async () => {
    const abort = new AbortController();
    const call = channel.call({ waitMs: 60_000, value: 'finished' }, abort.signal);
    abort.abort();
    expect(await call).toBe('aborted');
    // Already aborted before the call: the thread sees it at once.
    expect(await channel.call({ waitMs: 60_000 }, AbortSignal.abort())).toBe('aborted');
  });

  it('rebuilds a DomainError with its code, details and retry hint; other errors keep their message', async () => {
    const failure = await channel.call({ domainError: true }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DomainError);
    expect(failure).toMatchObject({ code: 'rate_limited', message: 'slow down', details: { why: 'test' }, retryAfterSeconds: 2 });
    await expect(channel.call({ fail: true })).rejects.toThrow('the call failed');
  });

  it('fails the calls in flight when its thread dies, and answers the next call from a new thread', async () => {
    const inFlight = channel.call({ waitMs: 60_000 });
    await expect(channel.call({ exit: true })).rejects.toThrow('the thread exited with code 3');
    await expect(inFlight).rejects.toThrow('the thread exited with code 3');
    expect(await channel.call({ value: 'again' })).toBe('again');
  });
});
