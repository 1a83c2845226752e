// Task matching with long polls. A task is materialized only when a poller takes it, so a task
// that went stale while queued (completed, timed out, moved to another queue) is simply skipped.
// A backlog is served by priority key, lower first, in arrival order within a key (Temporal's
// matching with its default 5 levels; fairness keys and weights are kept but not used).
import type { Msg } from '../common/proto.ts';

const PRIORITY_LEVELS = 5;
const DEFAULT_PRIORITY_KEY = 3;

/** The dispatch level of a Priority message: 0 or unset is the default (3), keys above 5 count as 5. */
export function priorityKey(priority: Msg | undefined): number {
  const key: number = priority?.priorityKey ?? 0;
  return key <= 0 ? DEFAULT_PRIORITY_KEY : Math.min(key, PRIORITY_LEVELS);
}

/** Temporal's priorities.Merge: each field set in `override` wins over `base` (children and activities inherit). */
export function mergePriority(base: Msg | undefined, override: Msg | undefined): Msg | undefined {
  if (!base) return override;
  if (!override) return base;
  return {
    priorityKey: override.priorityKey || base.priorityKey,
    fairnessKey: override.fairnessKey || base.fairnessKey,
    fairnessWeight: override.fairnessWeight || base.fairnessWeight,
  };
}

export interface QueuedTask<R> {
  /** Builds the poll response, or returns undefined when the task is no longer valid. `stamp`: the poller's WorkerVersionStamp. */
  start(identity: string, requestId: string, stamp?: Msg): R | undefined;
  /** From priorityKey(); the default when absent. */
  priorityKey?: number;
}

interface Poller<R> {
  deliver(task: QueuedTask<R>): void;
}

interface Queue<R> {
  tasks: QueuedTask<R>[];
  pollers: Poller<R>[];
  /** Last poll time (ms) by worker identity, for DescribeTaskQueue. */
  seen: Map<string, number>;
}

/** How long a poller is still reported after its last poll (Temporal's poller history TTL). */
const POLLER_TTL_MS = 5 * 60_000;

export class TaskQueues<R> {
  private queues = new Map<string, Queue<R>>();
  private readonly pollTimeoutMs: number;

  constructor(pollTimeoutMs: number) {
    this.pollTimeoutMs = pollTimeoutMs;
  }

  private queue(name: string): Queue<R> {
    let q = this.queues.get(name);
    if (!q) {
      q = { tasks: [], pollers: [], seen: new Map() };
      this.queues.set(name, q);
    }
    return q;
  }

  add(name: string, task: QueuedTask<R>): void {
    const q = this.queue(name);
    const poller = q.pollers.shift();
    if (poller) {
      poller.deliver(task);
      return;
    }
    const key = task.priorityKey ?? DEFAULT_PRIORITY_KEY;
    const keyOf = (t: QueuedTask<R>) => t.priorityKey ?? DEFAULT_PRIORITY_KEY;
    // Usually all tasks share a key: appending is the common case.
    const last = q.tasks.at(-1);
    const after = !last || keyOf(last) <= key ? -1 : q.tasks.findIndex((t) => keyOf(t) > key);
    if (after < 0) q.tasks.push(task);
    else q.tasks.splice(after, 0, task);
  }

  /**
   * Long-polls `name` until a valid task starts, the poll times out (undefined, like Temporal's
   * empty poll response) or the caller cancels.
   */
  async poll(name: string, identity: string, requestId: string, signal: AbortSignal, stamp?: Msg): Promise<R | undefined> {
    const deadline = Date.now() + this.pollTimeoutMs;
    const q = this.queue(name);
    q.seen.set(identity, Date.now());
    for (;;) {
      if (signal.aborted) return undefined;
      const task = q.tasks.shift() ?? (await this.wait(q, signal, deadline - Date.now()));
      if (!task) return undefined;
      if (signal.aborted) {
        // The caller is gone: keep the task for the next poller.
        q.tasks.unshift(task);
        return undefined;
      }
      const response = task.start(identity, requestId, stamp);
      if (response) return response;
    }
  }

  /** Workers that polled `name` recently, most recent first. */
  recentPollers(name: string): { identity: string; lastAccessMs: number }[] {
    const seen = this.queues.get(name)?.seen ?? new Map<string, number>();
    const now = Date.now();
    for (const [identity, at] of seen) if (now - at > POLLER_TTL_MS) seen.delete(identity);
    return [...seen].map(([identity, lastAccessMs]) => ({ identity, lastAccessMs })).sort((a, b) => b.lastAccessMs - a.lastAccessMs);
  }

  /** A worker that shut down no longer counts as a poller of the queues `matches` accepts. */
  forgetPoller(matches: (name: string) => boolean, identity: string): void {
    for (const [name, q] of this.queues) if (matches(name)) q.seen.delete(identity);
  }

  private wait(q: Queue<R>, signal: AbortSignal, timeoutMs: number): Promise<QueuedTask<R> | undefined> {
    if (timeoutMs <= 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const finish = (task: QueuedTask<R> | undefined) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const i = q.pollers.indexOf(poller);
        if (i >= 0) q.pollers.splice(i, 1);
        resolve(task);
      };
      const poller: Poller<R> = { deliver: finish };
      const onAbort = () => finish(undefined);
      const timer = setTimeout(onAbort, timeoutMs);
      signal.addEventListener('abort', onAbort);
      q.pollers.push(poller);
    });
  }
}
