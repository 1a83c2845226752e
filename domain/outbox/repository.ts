import { sql } from 'kysely';
import type { Db, DbOrTrx } from '../db/index.ts';
import { newId } from '../security/index.ts';
import type { OutboxEvent } from './events.ts';

/** The channel a relay listens on; NOTIFY is delivered at commit, so only committed intents wake it. */
export const OUTBOX_CHANNEL = 'svc_outbox';

/**
 * Records an intent in the caller's transaction: it exists exactly when the
 * change it follows was committed, and a dry run (rolled back) leaves none.
 */
export async function enqueue(trx: DbOrTrx, event: OutboxEvent): Promise<void> {
  await trx
    .insertInto('outbox')
    .values({ id: newId('obx'), topic: event.topic, key: event.key, payload: JSON.stringify(event.payload) })
    .execute();
  await sql`SELECT pg_notify(${OUTBOX_CHANNEL}, '')`.execute(trx);
}

export interface ClaimedEvent {
  id: string;
  event: OutboxEvent;
  attempts: number;
}

/**
 * Takes up to `limit` due intents, oldest first, and leases them for `leaseSeconds`:
 * another relay skips them meanwhile, and if this one dies they become due again.
 */
export async function claimDue(db: Db, limit: number, leaseSeconds: number): Promise<ClaimedEvent[]> {
  // RETURNING has no order, and sorting in JavaScript would compare milliseconds where
  // created_at holds microseconds: two intents of one transaction (a start, then its signal)
  // written in the same millisecond could swap. So the claimed rows are ordered in SQL.
  const rows = await sql<{ id: string; topic: string; key: string; payload: unknown; attempts: number }>`
    WITH claimed AS (
      UPDATE outbox SET attempts = attempts + 1, next_attempt_at = clock_timestamp() + make_interval(secs => ${leaseSeconds})
      WHERE id IN (
        SELECT id FROM outbox WHERE next_attempt_at <= clock_timestamp()
        ORDER BY created_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING id, topic, key, payload, attempts, created_at)
    SELECT id, topic, key, payload, attempts FROM claimed ORDER BY created_at, id`.execute(db);
  return rows.rows.map((r) => ({
    id: r.id,
    attempts: r.attempts,
    event: { topic: r.topic, key: r.key, payload: r.payload } as OutboxEvent,
  }));
}

export async function markDelivered(db: Db, id: string): Promise<void> {
  await db.deleteFrom('outbox').where('id', '=', id).execute();
}

export async function markFailed(db: Db, id: string, error: string, retryInSeconds: number): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ last_error: error.slice(0, 2000), next_attempt_at: sql`clock_timestamp() + make_interval(secs => ${retryInSeconds})` })
    .where('id', '=', id)
    .execute();
}

/** Seconds until the earliest intent is due (0 when one is due now), or undefined when none waits. */
export async function secondsUntilDue(db: Db): Promise<number | undefined> {
  const row = await db
    .selectFrom('outbox')
    .select(sql<number>`greatest(0, extract(epoch FROM min(next_attempt_at) - clock_timestamp()))`.as('wait'))
    .executeTakeFirst();
  return row?.wait == null ? undefined : Number(row.wait);
}
