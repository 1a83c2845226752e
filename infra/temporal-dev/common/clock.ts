// Virtual clock. All server deadlines (timers, timeouts, retry backoff) are scheduled here.
// In time-skipping mode, whenever skipping is unlocked and the server reports nothing runnable
// (no workflow task outstanding, no activity running that a sleep does not offset), time jumps
// straight to the next deadline, as the Java test server does. Otherwise deadlines fire in real time.

export interface Deadline {
  readonly at: number;
  cancel(): void;
}

/** What the server has outstanding, as the clock weighs it against skipping. */
export interface OutstandingWork {
  /** A workflow task is scheduled or running: never skip. */
  workflowTask: boolean;
  /** Activity attempts queued or running: each holds a lock, as in the Java test server. */
  activities: number;
}

interface Entry {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class VirtualClock {
  readonly timeSkipping: boolean;
  private offset = 0;
  private seq = 0;
  /** Min-heap by (at, seq); cancelled entries are dropped when they reach the top. */
  private heap: Entry[] = [];
  private realTimer: NodeJS.Timeout | undefined;
  private checkQueued = false;
  /**
   * Explicit TestService locks; skipping is allowed at 0 or below. It starts locked, like the Java
   * test server. Unlike Java, unbalanced unlocks are tolerated, so concurrent `result()` calls of
   * the SDK's time-skipping client (unlock ... lock each) work.
   */
  private locks: number;
  /** UnlockTimeSkippingWithSleep calls in progress: each releases one lock while it waits. */
  private sleepers = 0;
  private outstanding: () => OutstandingWork = () => ({ workflowTask: false, activities: 0 });

  constructor(timeSkipping: boolean) {
    this.timeSkipping = timeSkipping;
    this.locks = timeSkipping ? 1 : 0;
  }

  /** Tells the clock how to know what tasks are outstanding (which hold skipping back). */
  setWorkProbe(probe: () => OutstandingWork): void {
    this.outstanding = probe;
  }

  now(): number {
    return Date.now() + this.offset;
  }

  schedule(at: number, fn: () => void): Deadline {
    const entry: Entry = { at, seq: this.seq++, fn, cancelled: false };
    this.push(entry);
    this.poke();
    return {
      at,
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  after(ms: number, fn: () => void): Deadline {
    return this.schedule(this.now() + ms, fn);
  }

  lock(): void {
    this.locks++;
  }

  unlock(): void {
    this.locks--;
    this.poke();
  }

  /**
   * TestService.UnlockTimeSkippingWithSleep (the SDK's `env.sleep`): one lock is released until
   * `ms` of virtual time have passed. As in the Java test server a running activity holds a lock,
   * so an activity that sleeps this way lets time skip while it waits (when nothing else holds it).
   */
  async sleepUnlocked(ms: number): Promise<void> {
    const until = this.now() + ms;
    this.sleepers++;
    try {
      await this.waitUntil(until);
    } finally {
      this.sleepers--;
    }
  }

  /** Resolves once the virtual time reaches `at` (skipping if allowed). */
  waitUntil(at: number): Promise<void> {
    return new Promise((resolve) => this.schedule(at, resolve));
  }

  /** Re-evaluates deadlines soon; call after any state change that may make the server idle. */
  poke(): void {
    if (this.checkQueued) return;
    this.checkQueued = true;
    // setImmediate lets a burst of synchronous state changes settle before judging idleness.
    setImmediate(() => {
      this.checkQueued = false;
      this.check();
    });
  }

  stop(): void {
    clearTimeout(this.realTimer);
    this.heap = [];
  }

  private check(): void {
    clearTimeout(this.realTimer);
    this.realTimer = undefined;
    while (this.heap[0]?.cancelled) this.pop();
    const next = this.heap[0];
    if (!next) return;
    let delay = next.at - this.now();
    if (delay > 0 && this.timeSkipping && this.maySkip()) {
      this.offset += delay;
      delay = 0;
    }
    if (delay > 0) {
      this.realTimer = setTimeout(() => this.check(), Math.min(delay, 2 ** 31 - 1));
      return;
    }
    // Fire one deadline per round so that the work it causes can block further skipping.
    this.pop();
    next.fn();
    this.poke();
  }

  /**
   * Explicit locks (below 0 counts as 0: the unbalanced unlocks of concurrent `result()` calls
   * must not cancel an activity's lock) plus one per running activity, less the sleepers.
   */
  private maySkip(): boolean {
    const work = this.outstanding();
    return !work.workflowTask && Math.max(this.locks, 0) + work.activities - this.sleepers <= 0;
  }

  private push(entry: Entry): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (!last || h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < h.length && before(h[l]!, h[min]!)) min = l;
      if (r < h.length && before(h[r]!, h[min]!)) min = r;
      if (min === i) return;
      [h[i], h[min]] = [h[min]!, h[i]!];
      i = min;
    }
  }
}

/** Earlier deadline first; FIFO among equal deadlines. */
function before(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
