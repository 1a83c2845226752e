import { sql } from 'kysely';
import type { FeedbackStatus, LogEventView } from '../../schemas/app-log.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { selectLog, toView } from './list-events.ts';
import { assertLogReader } from './log-app.ts';

/** Spec "Feedback status": the only moves. Anything else (backwards, skipping, repeating) is 409 conflict. */
export const FEEDBACK_MOVES: Readonly<Record<FeedbackStatus, readonly FeedbackStatus[]>> = {
  open: ['planned'],
  planned: ['done', 'dismissed'],
  done: [],
  dismissed: [],
};

/** Moves one feedback event of the namespace to `status`, recording who and when. */
export async function setFeedbackStatus(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  namespace: string,
  id: string,
  status: FeedbackStatus,
): Promise<LogEventView> {
  assertLogReader(principal, namespace);
  const event = await db
    .selectFrom('app_log_events as e')
    .innerJoin('apps as a', 'a.id', 'e.app_id')
    .select(['e.kind', 'e.status'])
    .where('e.id', '=', id)
    .where('a.namespace', '=', namespace)
    .forUpdate('e')
    .executeTakeFirst();
  if (!event) throw new DomainError('not_found', `No log event ${id} in ${namespace}.`);
  if (event.kind !== 'feedback' || event.status === null) {
    throw new DomainError('conflict', 'Only feedback has a handling status.', { details: { kind: event.kind } });
  }
  const allowed = FEEDBACK_MOVES[event.status];
  if (!allowed.includes(status)) {
    throw new DomainError('conflict', `Feedback that is ${event.status} cannot become ${status}.`, {
      details: { from: event.status, to: status, allowed },
    });
  }
  await db
    .updateTable('app_log_events')
    .set({ status, status_by: principal.account.id, status_at: clock.now() })
    .where('id', '=', id)
    .execute();
  const [row] = await selectLog(db, [sql`e.id = ${id}`], 1);
  return toView(row!);
}
