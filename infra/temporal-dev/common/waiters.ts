// Long-poll waiters: a reader waits for the next wake-up, a timeout or its caller's abort,
// whichever comes first.

export class Waiters {
  private readonly pending = new Set<() => void>();

  /** Resolves on the next `wakeAll`, after `timeoutMs`, or when `signal` aborts. */
  wait(signal: AbortSignal, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.pending.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done);
      this.pending.add(done);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.pending]) wake();
  }
}
