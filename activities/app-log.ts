import { purgeExpiredEvents } from '../domain/app-log/index.ts';
import type { Db } from '../domain/db/index.ts';

export function createAppLogActivities(deps: { db: Db }) {
  return {
    /** One batch of the app log's retention; `now` comes from the workflow, so time skipping applies. */
    purgeExpiredLogEvents: (input: { now: string; batchSize: number }) => purgeExpiredEvents(deps.db, new Date(input.now), input.batchSize),
  };
}
