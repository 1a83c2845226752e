import { sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { OntologyObject } from '../../../schemas/ontology.ts';
import type { ChangeState, Db, DbOrTrx } from '../../db/index.ts';
import { ONTOLOGY_CHANGES_CHANNEL } from '../write-edits.ts';

// The one reader of committed changes in a process: one LISTEN connection wakes it at every commit
// that wrote changes, it reads them once, in sequence order, with each object's state before and
// after its transaction, and hands each company's batch to that company's listeners (the
// subscription streams). A listener resuming from an older sequence number is replayed from the
// table first, in the same queue, so it joins the live feed without a gap or a repeat.
//
// Sequence numbers are taken at insert, not at commit: a change with a lower number may commit
// after a higher one is visible. The feed therefore stops at a gap until the gap cannot fill any
// more: only transactions in progress when the higher number was seen can fill it (the one writer
// inserts edits-history rows first, so a transaction has its id before it numbers a change), and
// once all of them have ended, a gap still open belongs to a rolled-back write. (The list of
// transactions in progress is the server's, all databases: a busy neighbour can only delay.)

export interface Change {
  seq: number;
  companyId: string;
  objectTypeId: string;
  primaryKey: string;
  state: ChangeState;
  /** The object before and after the change's transaction (null: absent). */
  before: OntologyObject | null;
  after: OntologyObject | null;
}

/** One company's changes, in sequence order, covering every change up to `throughSeq`. */
export interface ChangeBatch {
  changes: readonly Change[];
  throughSeq: number;
  /** One computation per key for the whole batch: listeners with the same object set share it. */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T>;
}

export interface ChangeListener {
  companyId: string;
  /** Called once, before any batch: where the listener starts, and whether changes after its sequence number are lost (trimmed). */
  start(position: number, lost: boolean): void;
  /** Called in sequence order; must not throw (a listener ends itself on its own errors). */
  deliver(batch: ChangeBatch): Promise<void>;
  /** The feed is stopping (the process shuts down). */
  stopped(): void;
}

export interface ChangeHub {
  /**
   * Joins the feed. `afterSeq`: the last sequence number the listener has seen; changes after it
   * are replayed first. Without it the listener starts now. Trimmed or unknown sequence numbers
   * start it now with `lost`.
   */
  attach(listener: ChangeListener, afterSeq: number | undefined): Promise<void>;
  detach(listener: ChangeListener): void;
  /** Every change up to here has been delivered to the listeners attached. */
  position(): number;
  stop(): Promise<void>;
}

const READ_LIMIT = 2_000;
/** Rows per replayed batch. */
const REPLAY_BATCH = 1_000;
/** Fallback poll (a notification missed while the listener reconnected) and the wait for a gap. */
const IDLE_POLL_MS = 2_000;
const GAP_POLL_MS = 100;
const RECONNECT_MS = 1_000;

export interface ChangeRow {
  seq: number;
  company_id: string;
  object_type_id: string;
  primary_key: string;
  state: ChangeState;
}

/** Changes with their before and after states: the first and last edits-history rows of the object in the change's transaction. */
export async function withStates(db: DbOrTrx, rows: readonly ChangeRow[]): Promise<Change[]> {
  if (rows.length === 0) return [];
  const states = await sql<{ seq: number; before: OntologyObject | null; after: OntologyObject | null }>`
    SELECT c.seq,
      (SELECT e.edit->'before' FROM ontology_edits e
        WHERE e.object_type_id = c.object_type_id AND e.primary_key = c.primary_key AND e.xact = c.xact ORDER BY e.seq LIMIT 1) AS before,
      (SELECT e.edit->'after' FROM ontology_edits e
        WHERE e.object_type_id = c.object_type_id AND e.primary_key = c.primary_key AND e.xact = c.xact ORDER BY e.seq DESC LIMIT 1) AS after
    FROM ontology_changes c WHERE c.seq = ANY(${rows.map((r) => r.seq)}::bigint[])`.execute(db);
  const bySeq = new Map(states.rows.map((s) => [Number(s.seq), s]));
  return rows.map((r) => ({
    seq: r.seq,
    companyId: r.company_id,
    objectTypeId: r.object_type_id,
    primaryKey: r.primary_key,
    state: r.state,
    before: bySeq.get(r.seq)?.before ?? null,
    after: r.state === 'REMOVED' ? null : (bySeq.get(r.seq)?.after ?? null),
  }));
}

function batchOf(changes: readonly Change[], throughSeq: number): ChangeBatch {
  const memos = new Map<string, Promise<unknown>>();
  return {
    changes,
    throughSeq,
    memo<T>(key: string, compute: () => Promise<T>) {
      let p = memos.get(key);
      if (!p) {
        p = compute();
        memos.set(key, p);
      }
      return p as Promise<T>;
    },
  };
}

/** Where a resumed sequence number stands: replayable, or lost (trimmed by retention, or never issued here). */
async function resumable(db: Db, afterSeq: number): Promise<boolean> {
  const trimmed = await db.selectFrom('ontology_changes_trimmed').select('through_seq').executeTakeFirst();
  const issued = await sql<{
    last: number;
  }>`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS last FROM ontology_changes_seq_seq`.execute(db);
  return afterSeq >= Number(trimmed?.through_seq ?? 0) && afterSeq <= Number(issued.rows[0]?.last ?? 0);
}

export async function startChangeHub(opts: { db: Db; databaseUrl: string; logger: Logger }): Promise<ChangeHub> {
  const { db, logger } = opts;
  const listeners = new Map<string, Set<ChangeListener>>();
  /** Each listener's last delivered sequence number (a resumed one may be ahead of the hub). */
  const positions = new Map<ChangeListener, number>();
  let cursor = 0;
  /** Every gap below this is a rolled-back write. */
  let deadBelow = 0;
  /** A gap seen below `maxSeq` waits for these transactions to end. */
  let waiting: { xids: ReadonlySet<string>; maxSeq: number } | undefined;
  let stopped = false;
  let queue: Promise<void> = Promise.resolve();
  let pumpQueued = false;
  let timer: NodeJS.Timeout | undefined;
  let listener: pg.Client | undefined;

  const enqueue = (task: () => Promise<void>): Promise<void> => {
    const run = queue.then(task);
    queue = run.catch((err: unknown) => logger.warn({ err }, 'ontology change feed step failed'));
    return run;
  };

  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(requestPump, ms);
  };

  /** Reads what committed since the cursor and delivers what is safe to deliver; repeats while full pages come back. */
  async function pump(): Promise<void> {
    for (;;) {
      const read = await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (trx) => {
          const rows = await trx
            .selectFrom('ontology_changes')
            .select(['seq', 'company_id', 'object_type_id', 'primary_key', 'state'])
            .where('seq', '>', cursor)
            .orderBy('seq')
            .limit(READ_LIMIT)
            .execute();
          const xip = await sql<{ xid: string }>`SELECT x::text AS xid FROM pg_snapshot_xip(pg_current_snapshot()) AS x`.execute(trx);
          return { rows: rows.map((r) => ({ ...r, seq: Number(r.seq) })), inProgress: new Set(xip.rows.map((r) => r.xid)) };
        });
      const { rows, inProgress } = read;
      if (waiting && ![...waiting.xids].some((x) => inProgress.has(x))) {
        deadBelow = Math.max(deadBelow, waiting.maxSeq + 1);
        waiting = undefined;
      }
      const maxSeq = rows.at(-1)?.seq ?? cursor;
      // Nothing in progress: no gap below what is visible can fill any more.
      if (inProgress.size === 0) deadBelow = Math.max(deadBelow, maxSeq + 1);
      let through = cursor;
      const ready: ChangeRow[] = [];
      for (const row of rows) {
        if (row.seq !== through + 1 && row.seq - 1 >= deadBelow) break;
        ready.push(row);
        through = row.seq;
      }
      const blocked = ready.length < rows.length;
      if (blocked && !waiting) waiting = { xids: inProgress, maxSeq };
      if (through > cursor) await deliver(ready, through);
      if (!blocked && rows.length === READ_LIMIT) continue;
      schedule(blocked ? GAP_POLL_MS : IDLE_POLL_MS);
      return;
    }
  }

  /** Hands each company's changes to its listeners, then moves the cursor. */
  async function deliver(rows: readonly ChangeRow[], through: number): Promise<void> {
    const wanted = rows.filter((r) => listeners.has(r.company_id));
    const changes = await withStates(db, wanted);
    const byCompany = new Map<string, Change[]>();
    for (const c of changes) {
      if (!byCompany.has(c.companyId)) byCompany.set(c.companyId, []);
      byCompany.get(c.companyId)!.push(c);
    }
    const deliveries: Promise<void>[] = [];
    for (const [companyId, list] of byCompany) {
      const batch = batchOf(list, through);
      for (const l of listeners.get(companyId) ?? []) deliveries.push(deliverTo(l, batch));
    }
    await Promise.all(deliveries);
    cursor = through;
  }

  async function deliverTo(l: ChangeListener, batch: ChangeBatch): Promise<void> {
    const after = positions.get(l);
    if (after === undefined || after >= batch.throughSeq) return;
    const changes = batch.changes.filter((c) => c.seq > after);
    positions.set(l, batch.throughSeq);
    // A listener ahead of the batch gets its own (memos are per list of changes).
    if (changes.length > 0) await l.deliver(changes.length === batch.changes.length ? batch : batchOf(changes, batch.throughSeq));
  }

  function requestPump(): void {
    if (pumpQueued || stopped) return;
    pumpQueued = true;
    void enqueue(async () => {
      pumpQueued = false;
      if (stopped) return;
      try {
        await pump();
      } catch (err) {
        logger.warn({ err }, 'reading ontology changes failed; trying again');
        schedule(IDLE_POLL_MS);
      }
    });
  }

  async function connect(): Promise<void> {
    const client = new pg.Client({ connectionString: opts.databaseUrl });
    listener = client;
    const lost = (err?: unknown) => {
      if (listener !== client) return;
      listener = undefined;
      client.end().catch(() => undefined);
      if (stopped) return;
      logger.warn({ err }, 'ontology change listener lost; polling until it reconnects');
      setTimeout(() => void connect(), RECONNECT_MS);
    };
    client.on('notification', requestPump);
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${ONTOLOGY_CHANGES_CHANNEL}`);
      requestPump();
    } catch (err) {
      lost(err);
    }
  }

  // Start at the newest change. A gap below it belongs to a transaction in progress now: replays
  // (which read below the cursor) wait until those have ended.
  let startedAmid: ReadonlySet<string> = new Set();
  await enqueue(async () => {
    const start = await sql<{ seq: number; xip: string[] }>`
      SELECT coalesce((SELECT max(seq) FROM ontology_changes), 0) AS seq,
        ARRAY(SELECT x::text FROM pg_snapshot_xip(pg_current_snapshot()) AS x) AS xip`.execute(db);
    cursor = Number(start.rows[0]!.seq);
    deadBelow = cursor + 1;
    startedAmid = new Set(start.rows[0]!.xip);
  });
  const settleStart = async () => {
    while (startedAmid.size > 0 && !stopped) {
      const now = await sql<{ xid: string }>`SELECT x::text AS xid FROM pg_snapshot_xip(pg_current_snapshot()) AS x`.execute(db);
      const inProgress = new Set(now.rows.map((r) => r.xid));
      startedAmid = new Set([...startedAmid].filter((x) => inProgress.has(x)));
      if (startedAmid.size > 0) await new Promise((resolve) => setTimeout(resolve, GAP_POLL_MS));
    }
  };
  await connect();

  return {
    attach(l, afterSeq) {
      return enqueue(async () => {
        if (stopped) return;
        const lost = afterSeq !== undefined && afterSeq !== cursor && !(await resumable(db, afterSeq));
        const from = afterSeq === undefined || lost ? cursor : afterSeq;
        l.start(from, lost);
        positions.set(l, from);
        if (from < cursor) await settleStart();
        // Replay what the listener missed; everything up to the cursor is settled.
        for (let seen = from; seen < cursor; ) {
          const rows = await db
            .selectFrom('ontology_changes')
            .select(['seq', 'company_id', 'object_type_id', 'primary_key', 'state'])
            .where('company_id', '=', l.companyId)
            .where('seq', '>', seen)
            .where('seq', '<=', cursor)
            .orderBy('seq')
            .limit(REPLAY_BATCH)
            .execute();
          const through = rows.length === REPLAY_BATCH ? Number(rows.at(-1)!.seq) : cursor;
          const batch = batchOf(
            await withStates(
              db,
              rows.map((r) => ({ ...r, seq: Number(r.seq) })),
            ),
            through,
          );
          await deliverTo(l, batch);
          positions.set(l, through);
          seen = through;
        }
        if (!listeners.has(l.companyId)) listeners.set(l.companyId, new Set());
        listeners.get(l.companyId)!.add(l);
      });
    },
    detach(l) {
      positions.delete(l);
      const set = listeners.get(l.companyId);
      set?.delete(l);
      if (set?.size === 0) listeners.delete(l.companyId);
    },
    position: () => cursor,
    async stop() {
      stopped = true;
      for (const set of listeners.values()) for (const l of set) l.stopped();
      clearTimeout(timer);
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => undefined);
      await queue;
    },
  };
}
