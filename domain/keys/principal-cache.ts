import pg from 'pg';
import type { Logger } from 'pino';
import { BoundedCache } from '../cache/index.ts';
import type { Channel } from '../db/index.ts';
import type { MarkingAssignment } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

/**
 * Sent by triggers when a key, account, license or company changes (migration
 * 2026-11-22T2230-performance), a ticket, share or web session (2026-11-25T0060-credential-sources),
 * an app's channel pointers (2026-11-25T0130-online-versions), group memberships (2026-11-27T0400-groups),
 * marking role assignments and resource markings (2026-11-27T0500-markings), new shares, share roles and
 * resource grants (2026-11-27T1300-open-decisions).
 */
export const PRINCIPALS_CHANNEL = 'svc_principals';

export interface CachedKey {
  principal: Extract<Principal, { kind: 'key' }>;
  /** When this process last wrote (or read) the key's last_used_at, in ms. */
  lastUsedAt: number;
}

/** An app ticket cookie found valid for the app's version files (domain/hosting/admit-ticket-cookie.ts). */
export interface CachedTicketCookie {
  ticketCookie: {
    appId: string;
    channel: Channel /** It stops admitting by itself then (ms): expiry, renewal, share expiry. */;
    until: number;
  };
}

/** The versions whose `_v/` files an app's channel tree serves now (domain/apps/hosted-apps.ts). */
export interface CachedOnlineVersions {
  onlineVersionIds: readonly string[];
}

/** An account's roles on markings, direct and through groups (domain/markings clearanceOf); membership ends are judged at each check. */
export interface CachedMarkingAssignments {
  markingAssignments: readonly MarkingAssignment[];
}

/** A web session found valid (domain/sessions findSession), by `session:`, token hash and app host. */
export interface CachedSession {
  session: {
    principal: Extract<Principal, { kind: 'session' }>;
    /** ms: it stops admitting by itself then. */
    expiresAt: number;
  };
}

/** An app ticket found valid for API calls (domain/hosting authenticateTicket), by `ticket-auth:` and ticket hash. */
export interface CachedTicket {
  ticketAuth: {
    principal: Extract<Principal, { kind: 'ticket' }>;
    /** ms: it stops admitting by itself then (expiry, renewal overlap, share or membership expiry). */
    validUntil: number;
  };
}

export type CachedEntry = CachedKey | CachedTicketCookie | CachedOnlineVersions | CachedMarkingAssignments | CachedSession | CachedTicket;

/**
 * The principals behind keys by key hash, the ticket cookies admitted to version files by
 * `ticket:` and ticket hash, and the online versions of app channels by `online:`, app and channel,
 * in one process. Every committed change to keys, accounts, licenses, companies, tickets, shares,
 * web sessions or channel pointers NOTIFYs every process, which empties its cache. While the
 * listener is not connected nothing is cached (each request reads the database), since
 * notifications may have been missed.
 */
export interface PrincipalCache {
  /**
   * Answers only after a round trip on the listener connection sent after this call: PostgreSQL
   * delivers a listener's pending notifications before it answers, so a change committed before
   * the request arrived has emptied the cache first. One round trip serves every request that
   * arrived while the previous one was out, so under load it costs a fraction of a query each.
   */
  get(hash: string): Promise<CachedEntry | undefined>;
  /** The round trip of `get` alone: true once every change committed before the call has reached this process. */
  caughtUp(): Promise<boolean>;
  /** Read before the lookup query: `set` drops the entry if an invalidation came in between. */
  generation(): number;
  /** Called at each invalidation: for caches of other decisions that the same changes end (domain/hosting's reusable opens). */
  onInvalidate(listener: () => void): void;
  set(hash: string, generation: number, entry: CachedEntry): void;
  stop(): Promise<void>;
}

const RECONNECT_MS = 1_000;
/** The listener's application_name, as operators see it in pg_stat_activity. */
export const LISTENER_NAME = 'svc-principal-cache';

export async function startPrincipalCache(opts: { databaseUrl: string; logger: Logger; maxEntries?: number }): Promise<PrincipalCache> {
  const entries = new BoundedCache<string, CachedEntry>(opts.maxEntries ?? 10_000);
  let generation = 0;
  let live = false;
  let stopped = false;
  let listener: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const listeners: (() => void)[] = [];

  // Everything goes: a notification does not say which principal changed.
  const invalidate = () => {
    generation++;
    entries.clear();
    for (const listener of listeners) listener();
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

  return {
    async get(hash) {
      if (!(await caughtUp())) return undefined;
      return live ? entries.get(hash) : undefined;
    },
    caughtUp,
    generation: () => generation,
    onInvalidate(listener) {
      listeners.push(listener);
    },
    set(hash, seen, entry) {
      if (live && seen === generation) entries.set(hash, entry);
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
