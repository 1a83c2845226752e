import type { DbOrTrx } from '../db/index.ts';
import type { RunEvent } from './runs.ts';

export interface SequencedEvent {
  seq: number;
  event: RunEvent;
}

/** The app's run progress after `afterSeq`, in order (the watch stream's source). */
export async function listRunEvents(db: DbOrTrx, appId: string, afterSeq: number, limit = 200): Promise<SequencedEvent[]> {
  const rows = await db
    .selectFrom('workflow_run_events')
    .select(['seq', 'payload'])
    .where('app_id', '=', appId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ seq: r.seq, event: r.payload as RunEvent }));
}

/** The newest sequence number of the app's run progress (0 when none). */
export async function lastRunEventSeq(db: DbOrTrx, appId: string): Promise<number> {
  const row = await db
    .selectFrom('workflow_run_events')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('app_id', '=', appId)
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}
