// An execution's event history: append-only, with waiters for long-polling readers.
import { encodeMessage, eventTypeFor, lookupType, type Msg } from '../common/proto.ts';
import { msToProto } from '../common/time.ts';
import { Waiters } from '../common/waiters.ts';

/**
 * An event the workflow must see (signal, timer fired, activity result...), kept as data while a
 * workflow task runs, so buffered events survive a restart.
 */
export interface RecordedEvent {
  attrField: string;
  attrs: Msg;
  /** ActivityTaskStarted attributes, written just before; its event id becomes `attrs.startedEventId`. */
  activityStarted?: Msg;
}

let taskIdSeq = 1;

const WORKER_MAY_IGNORE = new Set(['workflowExecutionOptionsUpdatedEventAttributes']);

export class History {
  readonly events: Msg[] = [];
  private readonly waiters = new Waiters();
  /** Encoded size of the first `sized` events, computed when first asked for (events are never changed once written). */
  private sized = 0;
  private size = 0;

  /** Takes back a persisted history; task ids issued later stay above its own. */
  restore(events: Msg[]): void {
    this.events.push(...events);
    for (const e of events) if (e.taskId >= taskIdSeq) taskIdSeq = e.taskId + 1;
  }

  get lastEventId(): number {
    return this.events.length;
  }

  /** The history's size in bytes as Temporal counts it: its events as encoded protobuf. */
  get sizeBytes(): number {
    const type = lookupType('temporal.api.history.v1.HistoryEvent');
    for (; this.sized < this.events.length; this.sized++) this.size += encodeMessage(type, this.events[this.sized]!).length;
    return this.size;
  }

  /**
   * Appends an event whose attributes live in `attrField` (e.g. `timerFiredEventAttributes`). From
   * the `command` that caused it, the event keeps its summary/details and event group markers.
   */
  append(attrField: string, attrs: Msg, now: number, command?: Msg): Msg {
    const event: Msg = {
      eventId: this.events.length + 1,
      eventTime: msToProto(now),
      eventType: eventTypeFor(attrField),
      taskId: taskIdSeq++,
      [attrField]: attrs,
    };
    // As Temporal's history builder: events a worker may not know of, so older SDKs skip them.
    if (WORKER_MAY_IGNORE.has(attrField)) event.workerMayIgnore = true;
    if (command?.userMetadata) event.userMetadata = command.userMetadata;
    if (command?.eventGroupMarkers?.length) event.eventGroupMarkers = command.eventGroupMarkers;
    this.events.push(event);
    this.notify();
    return event;
  }

  /** Wakes long-pollers; also used when the execution closes without a new event being read. */
  notify(): void {
    this.waiters.wakeAll();
  }

  /** Resolves on the next append, or after `timeoutMs`, or when `signal` aborts. */
  waitForChange(signal: AbortSignal, timeoutMs: number): Promise<void> {
    return this.waiters.wait(signal, timeoutMs);
  }
}
