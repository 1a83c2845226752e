import { sql } from 'kysely';
import type { Db } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';

export interface Limit {
  /** Bucket family, e.g. `login-ip`. */
  name: string;
  max: number;
  windowSeconds: number;
}

/** Old windows are useless; they are pruned now and then (about one new window in a hundred) rather than on every hit. */
const PRUNE_PROBABILITY = 0.01;
const PRUNE_AFTER_MS = 86_400_000;

/**
 * The fixed window `at` falls in: windows start at multiples of `windowSeconds` since the epoch,
 * so a minute window runs from hh:mm:00.000 to hh:mm:59.999.
 */
export function windowOf(limit: Limit, at: Date): { start: Date; end: Date } {
  const windowMs = limit.windowSeconds * 1000;
  const start = Math.floor(at.getTime() / windowMs) * windowMs;
  return { start: new Date(start), end: new Date(start + windowMs) };
}

/**
 * Bucket windows this process has seen past their limit, by database: a window's count only grows,
 * so the rest of a flood in that window is refused here without a statement (each refused request
 * would otherwise write the same hot row and take a pool connection from the service's other
 * requests). Bounded: the oldest entries go first.
 */
const refusedWindows = new WeakMap<Db, Set<string>>();
const MAX_REFUSED_WINDOWS = 10_000;

/** Forgets the windows refused from memory, for when their counts are deleted (tests start each case afresh so). */
export function forgetRefusedWindows(db: Db): void {
  refusedWindows.delete(db);
}

function rateLimited(window: { end: Date }, now: Date): DomainError {
  const retryAfter = Math.max(1, Math.ceil((window.end.getTime() - now.getTime()) / 1000));
  return new DomainError('rate_limited', undefined, { details: { retryAfterSeconds: retryAfter }, retryAfterSeconds: retryAfter });
}

/**
 * Counts `cost` hits (default one) for `subject` in the fixed window the clock's time falls in and
 * refuses past `max` (the first refused hit counts too; later ones in that window are refused from
 * memory, see `refusedWindows`). Always written with the pool, outside the request's transaction: a
 * failed or dry-run request must still count, or it would be a free guess.
 */
export async function consume(
  db: Db,
  limit: Limit,
  subject: string,
  // Required, so no caller silently reads the system time past an injected clock.
  clock: Clock,
  random: () => number = Math.random,
  cost = 1,
): Promise<void> {
  const now = clock.now();
  const window = windowOf(limit, now);
  const bucket = `${limit.name}:${subject}`;
  const refused = stateOf(refusedWindows, db, () => new Set<string>());
  const key = `${bucket}@${window.start.getTime()}`;
  if (refused.has(key)) throw rateLimited(window, now);
  const hits = await addHits(db, bucket, window.start, key, cost);
  if (hits === cost && random() < PRUNE_PROBABILITY) {
    await db
      .deleteFrom('rate_limit_hits')
      .where('window_start', '<', new Date(now.getTime() - PRUNE_AFTER_MS))
      .execute();
  }
  if (hits > limit.max) {
    refused.add(key);
    if (refused.size > MAX_REFUSED_WINDOWS) refused.delete(refused.values().next().value!);
    throw rateLimited(window, now);
  }
}

/** This process's state for one database, made on its first use. */
function stateOf<T>(states: WeakMap<Db, T>, db: Db, make: () => T): T {
  const known = states.get(db);
  if (known !== undefined) return known;
  const made = make();
  states.set(db, made);
  return made;
}

type Waiter = { cost: number; resolve(hits: number): void; reject(err: unknown): void };
/** Hits waiting for their bucket's statement in flight, by database and bucket window (`bucket@windowStart`). */
const waiting = new WeakMap<Db, Map<string, Waiter[]>>();

/**
 * Adds `cost` to the window's count; resolves to the count up to and including this hit. The hits
 * of one bucket that arrive while its statement is in flight go together in the next one: a flood
 * (one company's loop of requests answered 429) then writes one hot row with one statement, on one
 * pool connection at a time, instead of queueing every request on that row's lock and taking the
 * pool from everyone else's requests. The counts stay exact, each hit in arrival order.
 */
function addHits(db: Db, bucket: string, windowStart: Date, key: string, cost: number): Promise<number> {
  const byBucket = stateOf(waiting, db, () => new Map<string, Waiter[]>());
  return new Promise((resolve, reject) => {
    const queued = byBucket.get(key);
    if (queued) {
      queued.push({ cost, resolve, reject });
      return;
    }
    // Runs at once up to its first await: the queue for hits arriving meanwhile is in place before this returns.
    void (async () => {
      for (let batch: Waiter[] = [{ cost, resolve, reject }]; batch.length > 0; ) {
        const next: Waiter[] = [];
        byBucket.set(key, next);
        const total = batch.reduce((sum, w) => sum + w.cost, 0);
        try {
          const row = await db
            .insertInto('rate_limit_hits')
            .values({ bucket, window_start: windowStart, hits: total })
            .onConflict((oc) => oc.columns(['bucket', 'window_start']).doUpdateSet({ hits: sql`rate_limit_hits.hits + ${total}` }))
            .returning('hits')
            .executeTakeFirstOrThrow();
          let count = row.hits - total;
          for (const w of batch) {
            count += w.cost;
            w.resolve(count);
          }
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
        batch = next;
      }
      byBucket.delete(key);
    })();
  });
}

/**
 * Whose budget a credential's request counts against: its company (a key's, a ticket's app's), else
 * its account (a web session may act for several companies; a public app has none). One company's
 * flood then never limits another company's requests from the same address.
 */
export function tenantOf(principal: Principal): string {
  if (principal.kind === 'key') return `company:${principal.company.id}`;
  if (principal.kind === 'ticket')
    return principal.ticket.companyId ? `company:${principal.ticket.companyId}` : `app:${principal.ticket.appId}`;
  return `account:${principal.account.id}`;
}
