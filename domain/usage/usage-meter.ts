import type { Db } from '../db/index.ts';
import { assertValidIncrement, recordUsage, type UsageIncrement } from './record-usage.ts';

/**
 * The one call producers use to meter (the seam for realtime connections, workflow runs and
 * model calls as they arrive): `await meter.record(increment)`. Calls made while a write is in
 * flight are written together in the next single statement (group commit), so under load a
 * metered call costs a fraction of a round trip. Each call's promise settles when its own
 * increments are committed (or fails with the statement), so nothing is held only in memory
 * after a producer was told it is recorded.
 */
export interface UsageMeter {
  record(increments: UsageIncrement | readonly UsageIncrement[]): Promise<void>;
}

interface Waiting {
  increments: readonly UsageIncrement[];
  resolve(): void;
  reject(err: unknown): void;
}

/** Upper bound of one statement's increments (parameters stay far below PostgreSQL's 65535). */
const MAX_BATCH = 2000;

export function createUsageMeter(db: Db): UsageMeter {
  const queue: Waiting[] = [];
  let writing = false;

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch: Waiting[] = [];
      let size = 0;
      while (queue.length > 0 && (batch.length === 0 || size + queue[0]!.increments.length <= MAX_BATCH)) {
        const next = queue.shift()!;
        size += next.increments.length;
        batch.push(next);
      }
      try {
        await recordUsage(
          db,
          batch.flatMap((w) => w.increments),
        );
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    writing = false;
  }

  return {
    record(increments) {
      const list = Array.isArray(increments) ? (increments as readonly UsageIncrement[]) : [increments as UsageIncrement];
      return new Promise<void>((resolve, reject) => {
        // Refused alone, before it could fail a statement shared with other producers' increments.
        list.forEach(assertValidIncrement);
        queue.push({ increments: list, resolve, reject });
        if (!writing) {
          writing = true;
          // The calls of this turn of the event loop join the first statement.
          setImmediate(() => void drain());
        }
      });
    },
  };
}
