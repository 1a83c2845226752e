// Task matching with long polls. A task is materialized only when a poller takes it, so a task
// that went stale while queued (completed, timed out, moved to another queue) is simply skipped.

export interface QueuedTask<R> {
  /** Builds the poll response, or returns undefined when the task is no longer valid. */
  start(identity: string, requestId: string): R | undefined;
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
    if (poller) poller.deliver(task);
    else q.tasks.push(task);
  }

  /**
   * Long-polls `name` until a valid task starts, the poll times out (undefined, like Temporal's
   * empty poll response) or the caller cancels.
   */
  async poll(name: string, identity: string, requestId: string, signal: AbortSignal): Promise<R | undefined> {
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
      const response = task.start(identity, requestId);
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
