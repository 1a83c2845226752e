import { sql } from 'kysely';
import { type Db, groupCommit } from '../db/index.ts';
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
export function windowOf(limit: Pick<Limit, 'windowSeconds'>, at: Date): { start: Date; end: Date } {
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

/** Forgets the windows refused from memory and the reserves held (`consumeReserved`), for when their counts are deleted (tests start each case afresh so). */
export function forgetRefusedWindows(db: Db): void {
  refusedWindows.delete(db);
  reserves.delete(db);
}

function rateLimited(window: { end: Date }, now: Date): DomainError {
  const retryAfter = Math.max(1, Math.ceil((window.end.getTime() - now.getTime()) / 1000));
  return new DomainError('rate_limited', undefined, { details: { retryAfterSeconds: retryAfter }, retryAfterSeconds: retryAfter });
}

/** A hit counted in its window (`count`), not yet judged against a maximum (`judge`). */
interface Counted {
  /** The window's count up to and including this hit; Infinity when this process saw the window refused already. */
  hits: number;
  key: string;
  window: { start: Date; end: Date };
  now: Date;
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
  judge(db, limit, await count(db, limit, subject, clock, { random, cost }));
}

/** A bucket window's key, as `writeHits`'s statement returns it with each count. */
const windowKey = (bucket: string, start: Date) => `${bucket}@${start.getTime()}`;

/** `consume`'s first half: the hit written, its window's count known. */
async function count(
  db: Db,
  limit: Pick<Limit, 'name' | 'windowSeconds'>,
  subject: string,
  clock: Clock,
  { random = Math.random, cost = 1 }: { random?: () => number; cost?: number } = {},
): Promise<Counted> {
  const now = clock.now();
  const window = windowOf(limit, now);
  const bucket = `${limit.name}:${subject}`;
  const key = windowKey(bucket, window.start);
  if (refusedWindows.get(db)?.has(key)) return { hits: Number.POSITIVE_INFINITY, key, window, now };
  const hits = await addHits(db, { bucket, windowStart: window.start, key, cost });
  if (hits === cost && random() < PRUNE_PROBABILITY) prune(db, now);
  return { hits, key, window, now };
}

/** `consume`'s second half: refuses a hit counted past `limit.max`, and remembers its window as refused. */
function judge(db: Db, limit: Pick<Limit, 'max'>, counted: Counted): void {
  if (counted.hits <= limit.max) return;
  const refused = refusedWindows.get(db) ?? new Set<string>();
  refusedWindows.set(db, refused);
  refused.add(counted.key);
  if (refused.size > MAX_REFUSED_WINDOWS) refused.delete(refused.values().next().value!);
  throw rateLimited(counted.window, counted.now);
}

type Hit = { bucket: string; windowStart: Date; key: string; cost: number };
/** Hits per statement: with three array parameters its text stays the same size whatever the batch. */
const MAX_HITS = 2000;

/**
 * Adds a hit's cost to its window's count; resolves to the count up to and including that hit.
 * The hits that arrive while a statement is in flight go together in the next one, whatever their
 * buckets (`groupCommit`): a flood (one company's loop of requests answered 429, or calls from
 * many addresses) then writes one statement at a time on one pool connection, instead of queueing
 * every request on a hot row's lock and taking the pool from everyone else's requests.
 */
const addHits = groupCommit<Hit, number>(writeHits, { maxWeight: MAX_HITS });

/**
 * One row per bucket window, in key order (two processes' statements then lock rows in the same
 * order); the counts stay exact, each hit counted in arrival order.
 */
async function writeHits(db: Db, hits: readonly Hit[]): Promise<number[]> {
  const rows = new Map<string, { bucket: string; windowStart: Date; total: number }>();
  for (const h of hits) {
    const row = rows.get(h.key);
    if (row) row.total += h.cost;
    else rows.set(h.key, { bucket: h.bucket, windowStart: h.windowStart, total: h.cost });
  }
  const batch = [...rows.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : +a.windowStart - +b.windowStart));
  // Each row comes back keyed as the hits are, with no date to parse.
  const { rows: counts } = await sql<{ key: string; hits: number }>`
    INSERT INTO rate_limit_hits (bucket, window_start, hits)
    SELECT b, to_timestamp(ms / 1000.0), h
      FROM unnest(${batch.map((r) => r.bucket)}::text[], ${batch.map((r) => r.windowStart.getTime())}::float8[],
                  ${batch.map((r) => r.total)}::int[]) AS t(b, ms, h)
    ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_hits.hits + excluded.hits
    RETURNING bucket || '@' || (extract(epoch FROM window_start) * 1000)::bigint AS key, hits`.execute(db);
  // Each window's count before this batch, then each hit's count after it.
  const running = new Map(counts.map((r) => [r.key, r.hits - rows.get(r.key)!.total]));
  return hits.map((h) => {
    const count = running.get(h.key)! + h.cost;
    running.set(h.key, count);
    return count;
  });
}

/** Databases with a prune out now: one at a time is enough, the next new window starts another. */
const pruning = new WeakSet<Db>();

/**
 * Deletes the windows older than a day, off the request path: the hit that drew it does not wait
 * for it (an index on `window_start` bounds its reads to what it deletes). A failed prune is
 * harmless: a later new window draws another.
 */
function prune(db: Db, now: Date): void {
  if (pruning.has(db)) return;
  pruning.add(db);
  void db
    .deleteFrom('rate_limit_hits')
    .where('window_start', '<', new Date(now.getTime() - PRUNE_AFTER_MS))
    .execute()
    .catch(() => undefined)
    .finally(() => pruning.delete(db));
}

/**
 * Numbers of one bucket window's count that this process wrote and has not handed out yet
 * (`consumeReserved`): `next` to `end`, none when `next > end`.
 */
interface Reserve {
  next: number;
  end: number;
  /** The window's count as the last write returned it (every process's hits and reserves). */
  known: number;
  /** Hits waiting for a number while a write is out (at most one write a bucket window at a time). */
  waiting: { resolve(hits: number): void; reject(err: unknown): void }[];
  writing: boolean;
  /** False past MAX_RESERVES: nothing keeps what it would reserve, so its writes reserve nothing. */
  kept: boolean;
}

/** The reserves of a database's open windows, by window (its end in ms) and then by bucket window key. */
const reserves = new WeakMap<Db, Map<number, Map<string, Reserve>>>();
/** Bucket windows with a reserve, per window: past it, a new bucket's hits are written without a reserve, as `consume` writes them. */
const MAX_RESERVES = 100_000;
/** A write reserves 1/RESERVE_SHARE of what the window has left: near the limit, writes are exact. */
const RESERVE_SHARE = 4;

function reserveOf(db: Db, key: string, windowEnd: number, nowMs: number): Reserve {
  const windows = reserves.get(db) ?? new Map<number, Map<string, Reserve>>();
  reserves.set(db, windows);
  let buckets = windows.get(windowEnd);
  if (!buckets) {
    for (const end of windows.keys()) if (end <= nowMs) windows.delete(end);
    buckets = new Map();
    windows.set(windowEnd, buckets);
  }
  let reserve = buckets.get(key);
  if (!reserve) {
    const kept = buckets.size < MAX_RESERVES;
    reserve = { next: 1, end: 0, known: 0, waiting: [], writing: false, kept };
    if (kept) buckets.set(key, reserve);
  }
  return reserve;
}

/**
 * `consume` for a limit judged on every request of a hot path (an app's requestsPerMinute):
 * instead of one write per hit, a write adds its hits and a reserve to the window's count in
 * PostgreSQL, and the process hands the reserved numbers to its next hits from memory. A hit is
 * let through when its number is within `limit.max`, so across processes a window never lets more
 * than `max` through, exactly as `consume`. The reserve is a quarter of what the window had left by
 * the count this process last read (so at most a quarter of `max`, and none under four left: near
 * the limit, writes are exact). What it costs: numbers another process reserved and has not used
 * yet are counted, so a window may refuse a hit before `max` were let through, by at most what the
 * other processes hold (each at most one reserve); a window's stored count may exceed its hits by
 * as much. A bucket's hits wait for a statement once a reserve, not once a hit.
 */
export async function consumeReserved(
  db: Db,
  limit: Limit,
  subject: string,
  clock: Clock,
  random: () => number = Math.random,
): Promise<void> {
  const now = clock.now();
  const window = windowOf(limit, now);
  const bucket = `${limit.name}:${subject}`;
  const key = windowKey(bucket, window.start);
  if (refusedWindows.get(db)?.has(key)) throw rateLimited(window, now);
  if (now.getTime() >= window.end.getTime() - AHEAD_MS) reserveNextWindow(db, limit, bucket, window.end, now, random);
  const reserve = reserveOf(db, key, window.end.getTime(), now.getTime());
  const hits =
    reserve.next <= reserve.end
      ? reserve.next++
      : await new Promise<number>((resolve, reject) => {
          reserve.waiting.push({ resolve, reject });
          if (!reserve.writing) void writeReserve(db, limit, { bucket, key, windowStart: window.start, reserve, now, random });
        });
  judge(db, limit, { hits, key, window, now });
}

/** A bucket used in a window's last AHEAD_MS reserves its next window then, rather than at its first hit there. */
const AHEAD_MS = 2_000;

/**
 * The next window's reserve of a bucket in use now, written in the background: its first hit
 * there then takes a number (or waits for this write) instead of writing after its round trip,
 * and a minute's turn writes no reserve for every active bucket at once on the request path.
 * Nothing when this process holds or writes one already, or the window would reserve nothing.
 */
function reserveNextWindow(db: Db, limit: Limit, bucket: string, start: Date, now: Date, random: () => number): void {
  const key = windowKey(bucket, start);
  const reserve = reserveOf(db, key, start.getTime() + limit.windowSeconds * 1000, now.getTime());
  if (!reserve.kept || reserve.writing || reserve.next <= reserve.end || limit.max - reserve.known < RESERVE_SHARE) return;
  void writeReserve(db, limit, { bucket, key, windowStart: start, reserve, now, random });
}

/**
 * Writes the hits waiting for a number and a reserve, hands them their numbers, and again while
 * hits arrive meanwhile that the reserve does not cover. Through `addHits`, so the writes of
 * every bucket go together. Started with no hit waiting by `reserveNextWindow`.
 */
async function writeReserve(
  db: Db,
  limit: Limit,
  at: { bucket: string; key: string; windowStart: Date; reserve: Reserve; now: Date; random: () => number },
): Promise<void> {
  const { reserve } = at;
  reserve.writing = true;
  do {
    const waiting = reserve.waiting.splice(0);
    const extra = reserve.kept ? Math.floor((limit.max - reserve.known - waiting.length) / RESERVE_SHARE) : 0;
    const cost = waiting.length + Math.max(0, extra);
    try {
      const total = await addHits(db, { bucket: at.bucket, windowStart: at.windowStart, key: at.key, cost });
      if (total === cost && at.random() < PRUNE_PROBABILITY) prune(db, at.now);
      reserve.known = total;
      let number = total - cost;
      for (const w of waiting) w.resolve(++number);
      reserve.next = number + 1;
      reserve.end = total;
      // Hits that arrived during the write take what it reserved.
      while (reserve.waiting.length > 0 && reserve.next <= reserve.end) reserve.waiting.shift()!.resolve(reserve.next++);
    } catch (err) {
      for (const w of waiting) w.reject(err);
    }
  } while (reserve.waiting.length > 0);
  reserve.writing = false;
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
