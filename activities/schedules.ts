import { Context } from '@temporalio/activity';
import type { Db } from '../domain/db/index.ts';
import { reconcileAllSchedules } from '../worker/schedules.ts';

export function createScheduleActivities(deps: { db: Db }) {
  return {
    /** Through the worker's own client, which carries svc's data converter (schedule actions are sealed like every payload). */
    reconcileSchedules: () => reconcileAllSchedules(Context.current().client, deps.db),
  };
}
