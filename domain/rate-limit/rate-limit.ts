import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { DomainError } from '../errors.ts';

export interface Limit {
  /** Bucket family, e.g. `login-ip`. */
  name: string;
  max: number;
  windowSeconds: number;
}

/**
 * Counts one hit for `subject` in a fixed window and refuses past `max`.
 * Always written with the pool, outside the request's transaction: a failed
 * or dry-run request must still count, or it would be a free guess.
 */
export async function consume(db: Db, limit: Limit, subject: string, now = new Date()): Promise<void> {
  const windowMs = limit.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const row = await db
    .insertInto('rate_limit_hits')
    .values({ bucket: `${limit.name}:${subject}`, window_start: windowStart, hits: 1 })
    .onConflict((oc) => oc.columns(['bucket', 'window_start']).doUpdateSet({ hits: sql`rate_limit_hits.hits + 1` }))
    .returning('hits')
    .executeTakeFirstOrThrow();
  if (row.hits === 1 && Math.random() < 0.01) {
    // Old windows are useless; prune now and then rather than on every hit.
    await db
      .deleteFrom('rate_limit_hits')
      .where('window_start', '<', new Date(now.getTime() - 86_400_000))
      .execute();
  }
  if (row.hits > limit.max) {
    const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now.getTime()) / 1000));
    throw new DomainError('rate_limited', undefined, { details: { retryAfterSeconds: retryAfter }, retryAfterSeconds: retryAfter });
  }
}
