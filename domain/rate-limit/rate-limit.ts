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
type Pending = { bucket: string; windowStart: Date; waiters: Waiter[] };
/** Hits waiting for the next statement, by bucket window (`bucket@windowStart`), and whether one is in flight, by database. */
const queues = new WeakMap<Db, { pending: Map<string, Pending>; flushing: boolean }>();
/** Rows per statement: a flood from many addresses is still a few statements. */
const MAX_ROWS = 500;

/**
 * Adds `cost` to the window's count; resolves to the count up to and including this hit. The hits
 * that arrive while a statement is in flight go together in the next one, whatever their buckets:
 * a flood (one company's loop of requests answered 429, or calls from many addresses) then writes
 * with one statement at a time on one pool connection, instead of queueing every request on a hot
 * row's lock and taking the pool from everyone else's requests. The counts stay exact, each hit in
 * arrival order. Rows go in key order, so two processes' statements lock them in the same order.
 */
function addHits(db: Db, bucket: string, windowStart: Date, key: string, cost: number): Promise<number> {
  const queue = stateOf(queues, db, () => ({ pending: new Map<string, Pending>(), flushing: false }));
  return new Promise((resolve, reject) => {
    const pending = queue.pending.get(key) ?? { bucket, windowStart, waiters: [] };
    pending.waiters.push({ cost, resolve, reject });
    queue.pending.set(key, pending);
    // Runs at once up to its first await: hits arriving meanwhile wait for the next statement.
    if (!queue.flushing) void flush(db, queue);
  });
}

async function flush(db: Db, queue: { pending: Map<string, Pending>; flushing: boolean }): Promise<void> {
  queue.flushing = true;
  while (queue.pending.size > 0) {
    const batch = [...queue.pending].sort(([a], [b]) => (a < b ? -1 : 1));
    queue.pending = new Map();
    for (let start = 0; start < batch.length; start += MAX_ROWS) await writeHits(db, batch.slice(start, start + MAX_ROWS));
  }
  queue.flushing = false;
}

async function writeHits(db: Db, batch: [string, Pending][]): Promise<void> {
  const total = (p: Pending) => p.waiters.reduce((sum, w) => sum + w.cost, 0);
  try {
    // Three array parameters, not three per row: the statement's text and its parse cost stay the
    // same whatever the batch size (a flood from many addresses is hundreds of rows), and each row
    // comes back keyed as the queue keys it, with no date to parse.
    const { rows } = await sql<{ key: string; hits: number }>`
      INSERT INTO rate_limit_hits (bucket, window_start, hits)
      SELECT b, to_timestamp(ms / 1000.0), h
        FROM unnest(${batch.map(([, p]) => p.bucket)}::text[], ${batch.map(([, p]) => p.windowStart.getTime())}::float8[],
                    ${batch.map(([, p]) => total(p))}::int[]) AS t(b, ms, h)
      ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_hits.hits + excluded.hits
      RETURNING bucket || '@' || (extract(epoch FROM window_start) * 1000)::bigint AS key, hits`.execute(db);
    const counts = new Map(rows.map((r) => [r.key, r.hits]));
    for (const [key, p] of batch) {
      let count = counts.get(key)! - total(p);
      for (const w of p.waiters) {
        count += w.cost;
        w.resolve(count);
      }
    }
  } catch (err) {
    for (const [, p] of batch) for (const w of p.waiters) w.reject(err);
  }
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
