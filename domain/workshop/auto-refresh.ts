import type { Logger } from 'pino';
import { ERRORS } from '../../schemas/errors.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { type ChangeBatch, type ChangeHub, type ChangeListener, listObjectTypes } from '../ontology/index.ts';
import type { Principal } from '../principal.ts';
import { openPage } from './evaluate-page.ts';
import type { OpenedModule } from './repository.ts';

// The auto-refresh stream of a module page (spec Events): `ready`, then `refresh {seq, objectTypes}`
// whenever committed changes touch a type the page shows, at most one per the page's interval;
// `reconnect {after}` after about 280 seconds. Fed by the data layer's change hub (one LISTEN per
// process, so a change committed through any process arrives), never by polling. A refresh names
// types only: the page then evaluates again, as its caller, and sees only what it may see.

/** Spec Events: about 280 seconds per connection, then `reconnect`. */
export const CONNECTION_MS = 280_000;
/** How often the credential and the caller's access to the module are checked again. */
export const RECHECK_MS = 5_000;
const HEARTBEAT_MS = 15_000;
/** Statuses that end a stream for good (the client must not reconnect): 401, 403, 404, 409 (auto-refresh turned off), 429 quota_exhausted. */
const FINAL_STATUSES = new Set([401, 403, 404, 409, 429]);

/** What a page watches: its bound object types the caller may read (by internal id, to their API names), and its interval. */
export interface WatchedPage {
  companyId: string;
  version: number;
  types: ReadonlyMap<string, string>;
  intervalSeconds: number;
}

/** The page's watch for this caller: 409 auto_refresh_not_enabled when the page has it off. */
export async function watchModulePage(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  rid: string,
  input: { page: string; version?: number | undefined },
): Promise<WatchedPage> {
  const { opened, version, page } = await openPage(deps, principal, rid, input);
  if (!page.autoRefresh.enabled) {
    throw new DomainError('auto_refresh_not_enabled', `Auto-refresh is not enabled for page ${page.id} of version ${version.version}.`, {
      details: { page: page.id, version: version.version },
    });
  }
  const bound = new Set(
    page.widgets.flatMap((w) => (w.type === 'objectView' ? [w.objectType] : 'objectSet' in w ? [w.objectSet.objectType] : [])),
  );
  return {
    companyId: opened.row.company_id,
    version: version.version,
    types: await readableTypes(deps, principal, opened, bound),
    intervalSeconds: page.autoRefresh.intervalSeconds,
  };
}

async function readableTypes(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, opened: OpenedModule, bound: ReadonlySet<string>) {
  if (bound.size === 0) return new Map<string, string>();
  try {
    const types = await listObjectTypes(deps, principal, opened.row.cell_id);
    return new Map(types.filter((t) => bound.has(t.apiName)).map((t) => [t.rid.slice(t.rid.lastIndexOf('.') + 1), t.apiName]));
  } catch (err) {
    // An ontology the caller reaches nothing of: nothing to watch (the page's widgets answer their errors).
    if (err instanceof DomainError && err.code === 'ontology_not_found') return new Map<string, string>();
    throw err;
  }
}

export interface AutoRefreshSink {
  /** One event; `id` is the sequence number the client has everything up to (its resume point). */
  send(event: 'ready' | 'refresh' | 'reconnect' | 'end', data: unknown, id?: number): void;
  /** A keep-alive carrying the resume point. */
  heartbeat(id: number): void;
  /** Ends the connection. */
  close(): void;
}

export interface AutoRefreshInput {
  hub: ChangeHub;
  watched: WatchedPage;
  page: string;
  /** The last sequence number the client has (`after`); absent: from now. */
  after: number | undefined;
  /** The page's watch again, for a caller checked again; throws the DomainError that ends the stream. */
  recheck: () => Promise<WatchedPage>;
  sink: AutoRefreshSink;
  logger: Logger;
}

/**
 * One connection's session. Refreshes are coalesced: the first change after a quiet interval is
 * sent at once, later ones wait for the interval's end and go out as one refresh naming every
 * type changed meanwhile. Changes replayed on a resume (`after`) go out as one refresh as soon as
 * the replay ends. `reconnect.after` never skips a change not yet sent: the next connection
 * replays it.
 */
export function startAutoRefresh(input: AutoRefreshInput): { stop(): void } {
  const { hub, sink } = input;
  let watched = input.watched;
  const intervalMs = () => watched.intervalSeconds * 1000;
  /** Everything up to here has reached the session; `sentThrough`: the client has been told of it. */
  let through = 0;
  let sentThrough = 0;
  const pending = new Set<string>();
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let replaying = true;
  let ended = false;
  let flushTimer: NodeJS.Timeout | undefined;
  const covered = () => (pending.size === 0 ? Math.max(through, sentThrough) : sentThrough);

  const flush = () => {
    flushTimer = undefined;
    if (ended || pending.size === 0) return;
    const objectTypes = [...pending].sort();
    pending.clear();
    sentThrough = through;
    lastSentAt = Date.now();
    sink.send('refresh', { seq: through, objectTypes }, through);
  };
  const schedule = () => {
    if (replaying || flushTimer || pending.size === 0) return;
    const wait = lastSentAt + intervalMs() - Date.now();
    if (wait <= 0) flush();
    else flushTimer = setTimeout(flush, wait);
  };

  const listener: ChangeListener = {
    companyId: watched.companyId,
    start(from, lost) {
      through = from;
      sentThrough = from;
      sink.send(
        'ready',
        {
          seq: from,
          page: input.page,
          version: watched.version,
          intervalSeconds: watched.intervalSeconds,
          objectTypes: [...watched.types.values()].sort(),
        },
        from,
      );
      // Changes after `after` are no longer kept: everything the page shows may have changed.
      if (lost) for (const t of watched.types.values()) pending.add(t);
    },
    async deliver(batch: ChangeBatch) {
      if (ended) return;
      for (const c of batch.changes) {
        const apiName = watched.types.get(c.objectTypeId);
        if (apiName) pending.add(apiName);
      }
      through = batch.throughSeq;
      schedule();
    },
    stopped: () => reconnect(),
  };

  const timers: NodeJS.Timeout[] = [];
  function stop(): void {
    if (ended) return;
    ended = true;
    clearTimeout(flushTimer);
    for (const t of timers) clearTimeout(t);
    hub.detach(listener);
  }
  /** Asks the client to connect again from what it has (the connection's time is up, the process stops, the feed failed). */
  function reconnect(): void {
    if (ended) return;
    sink.send('reconnect', { after: covered() }, covered());
    stop();
    sink.close();
  }
  function end(cause: DomainError): void {
    if (ended) return;
    sink.send('end', { code: cause.code, status: ERRORS[cause.code].status, message: cause.message });
    stop();
    sink.close();
  }

  let checking = false;
  const recheck = async () => {
    if (checking || ended) return;
    checking = true;
    try {
      watched = await input.recheck();
    } catch (err) {
      if (err instanceof DomainError && FINAL_STATUSES.has(ERRORS[err.code].status)) end(err);
      else input.logger.warn({ err }, 'auto-refresh re-check failed; trying again');
    } finally {
      checking = false;
    }
  };

  hub.attach(listener, input.after).then(
    () => {
      if (ended) return hub.detach(listener);
      replaying = false;
      // What happened while the client was away (or was lost): one refresh now.
      flush();
    },
    (err: unknown) => {
      input.logger.warn({ err }, 'auto-refresh could not join the change feed');
      reconnect();
    },
  );
  timers.push(
    setInterval(() => void recheck(), RECHECK_MS),
    setInterval(() => {
      if (!ended) sink.heartbeat(covered());
    }, HEARTBEAT_MS),
    setTimeout(reconnect, CONNECTION_MS),
  );
  return { stop };
}
