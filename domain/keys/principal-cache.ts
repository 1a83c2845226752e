import pg from 'pg';
import type { Logger } from 'pino';
import { BoundedCache } from '../cache/index.ts';

/**
 * Sent by triggers when a key, account, license or company changes (migration
 * 2026-11-22T2230-performance), a ticket, share or web session (2026-11-25T0060-credential-sources),
 * an app's channel pointers (2026-11-25T0130-online-versions), group memberships (2026-11-27T0400-groups),
 * marking role assignments and resource markings (2026-11-27T0500-markings), new shares, share roles and
 * resource grants (2026-11-27T1300-open-decisions), an app's improvements (2026-11-27T1500-evolve).
 * Nothing watches marking categories or new uploads: no cached value rests on a change of those that
 * the service can make today.
 */
export const PRINCIPALS_CHANNEL = 'svc_principals';

/**
 * One kind of entry, by key prefix, with the type of its values. Each kind is declared once, by
 * the use case that reads it (a second declaration of a prefix is a programming error).
 */
export interface CacheFamily<T> {
  readonly prefix: string;
  /** Never set: it carries the type of the family's values. */
  readonly valueType?: T;
}

const declared = new Set<string>();
export function cacheFamily<T>(prefix: string): CacheFamily<T> {
  if (declared.has(prefix)) throw new Error(`principal cache family ${prefix} is declared twice`);
  declared.add(prefix);
  return { prefix };
}

/**
 * What a key, session or ticket stands for, and decisions that rest on the same rows (online
 * versions, marking clearance, app opens, an app's limits), each under its family's prefix, in one
 * process. Every committed change to keys, accounts, licenses, companies, tickets, shares, grants,
 * web sessions, channel pointers, groups or markings NOTIFYs every process, which empties its
 * cache. While the listener is not connected nothing is cached (each request reads the database),
 * since notifications may have been missed.
 */
export interface PrincipalCache {
  /**
   * Answers only after a round trip on the listener connection sent after this call: PostgreSQL
   * delivers a listener's pending notifications before it answers, so a change committed before
   * the request arrived has emptied the cache first. One round trip serves every request that
   * arrived while the previous one was out, so under load it costs a fraction of a query each.
   */
  get<T>(family: CacheFamily<T>, id: string): Promise<T | undefined>;
  /** The round trip of `get` alone: true once every change committed before the call has reached this process. */
  caughtUp(): Promise<boolean>;
  /** The entry as the cache holds it now, without the round trip: for a caller that has caught up already (`oneRequestOf`). */
  peek<T>(family: CacheFamily<T>, id: string): T | undefined;
  /** Read before the lookup query: `set` drops the entry if an invalidation came in between. */
  generation(): number;
  set<T>(family: CacheFamily<T>, id: string, generation: number, value: T): void;
  stop(): Promise<void>;
}

/** One function for entries that end only by invalidation (a default parameter's arrow would be a new closure per call). */
const always = () => true;

/**
 * The cache's entry when it holds one `fresh` accepts (for entries that also end by time), else
 * `load`'s answer, kept when there is one. Without a cache (callers outside the API), and inside a
 * transaction, it loads and keeps nothing: a transaction's snapshot may be older than what the
 * cache has seen, and what it reads may never commit.
 */
export async function readThrough<T>(
  deps: { db: { readonly isTransaction: boolean }; principals?: PrincipalCache | undefined },
  family: CacheFamily<T>,
  id: string,
  load: () => Promise<T | undefined>,
  fresh: (value: T) => boolean = always,
): Promise<T | undefined> {
  const cache = deps.db.isTransaction ? undefined : deps.principals;
  const hit = await cache?.get(family, id);
  if (hit !== undefined && fresh(hit)) return hit;
  const generation = cache?.generation() ?? 0;
  const value = await load();
  if (value !== undefined) cache?.set(family, id, generation, value);
  return value;
}

const RECONNECT_MS = 1_000;
/** The listener's application_name, as operators see it in pg_stat_activity. */
export const LISTENER_NAME = 'svc-principal-cache';

export async function startPrincipalCache(opts: { databaseUrl: string; logger: Logger; maxEntries?: number }): Promise<PrincipalCache> {
  const entries = new BoundedCache<string, unknown>(opts.maxEntries ?? 10_000);
  let generation = 0;
  let live = false;
  let stopped = false;
  let listener: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  // Everything goes: a notification does not say which principal changed.
  const invalidate = () => {
    generation++;
    entries.clear();
  };
  const lost = (client: pg.Client, err?: unknown) => {
    if (listener !== client) return;
    live = false;
    listener = undefined;
    invalidate();
    client.end().catch(() => undefined);
    if (stopped) return;
    opts.logger.warn({ err }, 'principal cache listener lost; reading every key from the database until it reconnects');
    retry = setTimeout(connect, RECONNECT_MS);
  };
  async function connect(): Promise<void> {
    const client = new pg.Client({ connectionString: opts.databaseUrl, application_name: LISTENER_NAME });
    listener = client;
    client.on('notification', invalidate);
    client.on('error', (err) => lost(client, err));
    client.on('end', () => lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${PRINCIPALS_CHANNEL}`);
      // Stopped or lost meanwhile (stop and lost end the connection).
      if (listener !== client) return;
      invalidate();
      live = true;
    } catch (err) {
      lost(client, err);
    }
  }
  await connect();

  /** The round trip out now, if any. */
  let inFlight: Promise<boolean> | undefined;
  /** The next round trip: every request that arrives before it leaves waits for it. */
  let next: Promise<boolean> | undefined;
  /** True once a round trip sent after this call came back on the live listener. */
  const caughtUp = (): Promise<boolean> => {
    if (!live || !listener) return Promise.resolve(false);
    next ??= (async () => {
      // One round trip out at a time; then the end of this turn of the event loop, so every
      // request read in it shares the next one.
      await inFlight;
      await new Promise(setImmediate);
      next = undefined;
      const client = listener;
      if (!live || !client) return false;
      const sent = client.query('').then(
        () => true,
        () => false,
      );
      inFlight = sent;
      return sent;
    })();
    return next;
  };

  const peek = <T>(family: CacheFamily<T>, id: string) => (live ? (entries.get(`${family.prefix}:${id}`) as T | undefined) : undefined);

  return {
    async get<T>(family: CacheFamily<T>, id: string) {
      return (await caughtUp()) ? peek(family, id) : undefined;
    },
    caughtUp,
    peek,
    generation: () => generation,
    set(family, id, seen, value) {
      if (live && seen === generation) entries.set(`${family.prefix}:${id}`, value);
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const client = listener;
      listener = undefined;
      live = false;
      await client?.end().catch(() => undefined);
    },
  };
}

/**
 * The cache as one request sees it: its first read waits for the round trip, and later reads do
 * not (every change committed before the request arrived has reached the process by then, and
 * later ones empty the cache as they come). So a request must not commit a watched change on the
 * pool and then read the cache for it (none does: writes run in a transaction, where
 * `readThrough` keeps and trusts nothing). A ticket's call reads several entries (the ticket,
 * the app's limits, the access decision): one round trip instead of one each.
 */
export function oneRequestOf(cache: PrincipalCache): PrincipalCache {
  let caught: Promise<boolean> | undefined;
  const caughtUp = () => {
    caught ??= cache.caughtUp();
    return caught;
  };
  return {
    ...cache,
    caughtUp,
    async get(family, id) {
      return (await caughtUp()) ? cache.peek(family, id) : undefined;
    },
  };
}
