import { type Db, groupCommit } from '../db/index.ts';
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

/** Upper bound of one statement's increments (parameters stay far below PostgreSQL's 65535). */
const MAX_BATCH = 2000;

// The calls of one turn of the event loop join the first statement; a batch that fails is written
// again call by call, so one call's failure is its own.
const recordTogether = groupCommit<readonly UsageIncrement[]>((db, batch) => recordUsage(db, batch.flat()), {
  maxWeight: MAX_BATCH,
  weight: (increments) => increments.length,
  gatherTurn: true,
});

export function createUsageMeter(db: Db): UsageMeter {
  return {
    async record(increments) {
      const list = Array.isArray(increments) ? (increments as readonly UsageIncrement[]) : [increments as UsageIncrement];
      // Refused alone, before it could fail a statement shared with other producers' increments.
      list.forEach(assertValidIncrement);
      await recordTogether(db, list);
    },
  };
}
