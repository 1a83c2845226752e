// An execution's event history: append-only, with waiters for long-polling readers.
import { eventTypeFor, type Msg } from './proto.ts';
import { msToProto } from './time.ts';

let taskIdSeq = 1;

export class History {
  readonly events: Msg[] = [];
  private waiters = new Set<() => void>();

  /** Takes back a persisted history; task ids issued later stay above its own. */
  restore(events: Msg[]): void {
    this.events.push(...events);
    for (const e of events) if (e.taskId >= taskIdSeq) taskIdSeq = e.taskId + 1;
  }

  get lastEventId(): number {
    return this.events.length;
  }

  /** Appends an event whose attributes live in `attrField` (e.g. `timerFiredEventAttributes`). */
  append(attrField: string, attrs: Msg, now: number): Msg {
    const event: Msg = {
      eventId: this.events.length + 1,
      eventTime: msToProto(now),
      eventType: eventTypeFor(attrField),
      taskId: taskIdSeq++,
      [attrField]: attrs,
    };
    this.events.push(event);
    this.notify();
    return event;
  }

  /** Wakes long-pollers; also used when the execution closes without a new event being read. */
  notify(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) w();
  }

  /** Resolves on the next append, or after `timeoutMs`, or when `signal` aborts. */
  waitForChange(signal: AbortSignal, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done);
      this.waiters.add(done);
    });
  }
}
