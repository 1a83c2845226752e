// Durable state in one SQLite file (`--db-filename`), like `temporal server start-dev --db-filename`.
//
// Schema, version SCHEMA_VERSION (kept in PRAGMA user_version; PRAGMA application_id marks the file
// as ours). JSON columns write bytes (payload data) as {"$bytes": "<base64>"}.
//   namespaces(seq, name, state)        state: Namespace.snapshot()
//   search_attributes(name, type)       custom search attribute names and IndexedValueType
//   executions(seq, namespace, workflow_id, run_id, options, state)
//                                       one row per run, in start order; options: StartOptions,
//                                       written once; state: Execution.snapshot(), rewritten when dirty
//   history_events(run_seq, event_id, event)
//                                       one row per HistoryEvent (JSON), appended, never rewritten
// Task queues, timers and every other deadline are not stored apart: they follow from the runs'
// state and are rebuilt on load (Execution.resume).
//
// Write path: state changes mark their run (or namespace) dirty; before a request is answered the
// dirty rows are written in one transaction (one per request, or per burst of clock deadlines).
// WAL journal with synchronous=NORMAL: a killed process never loses a committed request and never
// leaves a half-written one; only an OS crash or power loss may drop the last commits.
import { chmodSync, closeSync, openSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { StateFileError } from '../common/errors.ts';
import type { Msg } from '../common/proto.ts';
import { Execution, type ExecutionSnapshot, type StartOptions } from '../history/workflow-execution.ts';
import type { ChangeLog, Namespace, NamespaceSnapshot, ServerState } from '../namespace/registry.ts';

export const SCHEMA_VERSION = 1;
/** "tdev": tells our files from other SQLite databases (e.g. Temporal's own dev server file). */
export const APPLICATION_ID = 0x74646576;

const SCHEMA = `
CREATE TABLE namespaces (seq INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, state TEXT NOT NULL);
CREATE TABLE search_attributes (name TEXT PRIMARY KEY, type INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE executions (
  seq INTEGER PRIMARY KEY,
  namespace TEXT NOT NULL REFERENCES namespaces (name),
  workflow_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  options TEXT NOT NULL,
  state TEXT NOT NULL,
  UNIQUE (namespace, run_id)
);
CREATE TABLE history_events (
  run_seq INTEGER NOT NULL REFERENCES executions (seq),
  event_id INTEGER NOT NULL,
  event TEXT NOT NULL,
  PRIMARY KEY (run_seq, event_id)
) WITHOUT ROWID;
`;

export class Persistence implements ChangeLog {
  private readonly db: DatabaseSync;
  private readonly server: ServerState;
  private readonly onError: (err: unknown) => void;
  /** Each stored run's row and how many of its events are stored. */
  private readonly rows = new Map<Execution, { seq: number; events: number }>();
  // Insertion-ordered: new runs are inserted in the order they started.
  private readonly dirtyRuns = new Set<Execution>();
  private readonly dirtyNamespaces = new Set<Namespace>();
  /** Search attributes added (their type) or removed (undefined) since the last flush. */
  private readonly newSearchAttributes = new Map<string, number | undefined>();
  private flushQueued = false;
  private closed = false;
  private readonly insertRun: StatementSync;
  private readonly updateRun: StatementSync;
  private readonly insertEvent: StatementSync;
  private readonly upsertNamespace: StatementSync;
  private readonly upsertSearchAttribute: StatementSync;
  private readonly deleteSearchAttribute: StatementSync;

  constructor(db: DatabaseSync, server: ServerState, onError: (err: unknown) => void) {
    this.db = db;
    this.server = server;
    this.onError = onError;
    this.insertRun = db.prepare('INSERT INTO executions (namespace, workflow_id, run_id, options, state) VALUES (?, ?, ?, ?, ?)');
    this.updateRun = db.prepare('UPDATE executions SET state = ? WHERE seq = ?');
    this.insertEvent = db.prepare('INSERT INTO history_events (run_seq, event_id, event) VALUES (?, ?, ?)');
    this.upsertNamespace = db.prepare(
      'INSERT INTO namespaces (name, state) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET state = excluded.state',
    );
    this.upsertSearchAttribute = db.prepare('INSERT OR REPLACE INTO search_attributes (name, type) VALUES (?, ?)');
    this.deleteSearchAttribute = db.prepare('DELETE FROM search_attributes WHERE name = ?');
  }

  executionChanged(exec: Execution): void {
    this.dirtyRuns.add(exec);
    this.queueFlush();
  }

  namespaceChanged(ns: Namespace): void {
    this.dirtyNamespaces.add(ns);
    this.queueFlush();
  }

  searchAttributeAdded(name: string, type: number): void {
    this.newSearchAttributes.set(name, type);
    this.queueFlush();
  }

  searchAttributeRemoved(name: string): void {
    this.newSearchAttributes.set(name, undefined);
    this.queueFlush();
  }

  /**
   * Commits once the current change has settled: follow-ups a request or deadline queues as
   * microtasks (child starts, parent notifications) go into the same transaction. Called before
   * every answer.
   */
  async settle(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.flush();
  }

  /**
   * A consistent copy of the whole state in `file` (which must not exist), taken between two
   * commits: what every answered request changed is in it. Only this connection can read the file
   * (locking_mode EXCLUSIVE), so a copy of a running server's state is taken here, not from outside.
   * Synchronous: the server answers nothing while it runs (VACUUM INTO writes the pages once).
   */
  copyTo(file: string): void {
    this.flush();
    this.db.prepare('VACUUM INTO ?').run(file);
  }

  /** Writes every dirty row in one transaction. */
  flush(): void {
    if (this.closed || (this.dirtyRuns.size === 0 && this.dirtyNamespaces.size === 0 && this.newSearchAttributes.size === 0)) return;
    const rows = new Map<Execution, { seq: number; events: number }>();
    this.db.exec('BEGIN');
    try {
      // Namespaces first: runs refer to them.
      for (const ns of this.dirtyNamespaces) this.upsertNamespace.run(ns.name, toJson(ns.snapshot()));
      for (const [name, type] of this.newSearchAttributes) {
        if (type === undefined) this.deleteSearchAttribute.run(name);
        else this.upsertSearchAttribute.run(name, type);
      }
      for (const exec of this.dirtyRuns) {
        let row = this.rows.get(exec);
        if (row) {
          this.updateRun.run(toJson(exec.snapshot()), row.seq);
        } else {
          const inserted = this.insertRun.run(exec.ns.name, exec.workflowId, exec.runId, toJson(exec.options), toJson(exec.snapshot()));
          row = { seq: Number(inserted.lastInsertRowid), events: 0 };
        }
        const events = exec.history.events;
        for (let i = row.events; i < events.length; i++) this.insertEvent.run(row.seq, i + 1, toJson(events[i]));
        rows.set(exec, { seq: row.seq, events: events.length });
      }
      this.db.exec('COMMIT');
    } catch (err) {
      // Nothing is marked clean: the next flush writes it all again.
      this.db.exec('ROLLBACK');
      throw err;
    }
    for (const [exec, row] of rows) this.rows.set(exec, row);
    this.dirtyRuns.clear();
    this.dirtyNamespaces.clear();
    this.newSearchAttributes.clear();
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.db.close();
  }

  /** Changes made outside any request (deadlines firing) are committed on the next turn of the event loop. */
  private queueFlush(): void {
    if (this.flushQueued || this.closed) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      try {
        this.flush();
      } catch (err) {
        this.onError(err);
      }
    });
  }

  /** Reads everything back into `server`, then re-arms deadlines and requeues tasks. */
  load(): void {
    const server = this.server;
    for (const row of this.db.prepare('SELECT name, state FROM namespaces ORDER BY seq').iterate()) {
      server.restoreNamespace(String(row.name), fromJson(String(row.state)) as NamespaceSnapshot);
    }
    for (const row of this.db.prepare('SELECT name, type FROM search_attributes').iterate()) {
      server.searchAttributeTypes.set(String(row.name), Number(row.type));
    }
    const eventsOf = this.db.prepare('SELECT event FROM history_events WHERE run_seq = ? ORDER BY event_id');
    for (const row of this.db.prepare('SELECT seq, namespace, options, state FROM executions ORDER BY seq').iterate()) {
      const seq = Number(row.seq);
      const ns = server.namespace(String(row.namespace));
      const state = fromJson(String(row.state)) as ExecutionSnapshot;
      const events = eventsOf.all(seq).map((e) => fromJson(String(e.event)) as Msg);
      const exec = new Execution(ns, fromJson(String(row.options)) as StartOptions, { state, events });
      this.rows.set(exec, { seq, events: events.length });
      ns.add(exec);
      // Deadlines that passed meanwhile fire once the clock runs, after every run is back.
      exec.resume(state);
    }
    // Schedules last: they look at the runs they started, and may take actions that came due.
    for (const ns of server.namespaces.values()) ns.schedules.rearm();
  }
}

/** Opens (or creates) the state file, loads it into `server` and starts recording its changes. */
export function openPersistence(filename: string, server: ServerState, onError: (err: unknown) => void): Persistence {
  let db: DatabaseSync;
  try {
    ownerOnly(filename);
    // timeout 0: a file another server holds fails at once instead of waiting.
    db = new DatabaseSync(filename, { timeout: 0 });
  } catch (err) {
    throw new StateFileError(`cannot open ${filename}: ${message(err)}`);
  }
  try {
    prepareFile(db, filename);
    const persistence = new Persistence(db, server, onError);
    server.changes = persistence;
    persistence.load();
    persistence.flush();
    return persistence;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * The state holds every workflow's inputs and results: readable by its owner only. Created so
 * before SQLite opens it (SQLite gives its -wal and -shm files the same mode); files of earlier
 * versions (0644) are narrowed.
 */
function ownerOnly(filename: string): void {
  if (filename === ':memory:') return;
  closeSync(openSync(filename, 'a', 0o600));
  for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

function prepareFile(db: DatabaseSync, filename: string): void {
  let applicationId: number;
  let version: number;
  let tables: number;
  try {
    // Exclusive: one server per file (a second one would diverge from the first).
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN IMMEDIATE');
    db.exec('COMMIT');
    applicationId = Number(db.prepare('PRAGMA application_id').get()!.application_id);
    version = Number(db.prepare('PRAGMA user_version').get()!.user_version);
    tables = Number(db.prepare('SELECT count(*) AS n FROM sqlite_schema').get()!.n);
  } catch (err) {
    if (/locked|busy/i.test(message(err)))
      throw new StateFileError(`${filename} is in use by another process (another temporal-dev server?)`);
    throw new StateFileError(`${filename} is not a temporal-dev state file: ${message(err)}`);
  }
  if (applicationId === 0 && tables === 0) {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('BEGIN');
    db.exec(SCHEMA);
    db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } else if (applicationId !== APPLICATION_ID) {
    throw new StateFileError(`${filename} is not a temporal-dev state file (it is another SQLite database)`);
  } else if (version !== SCHEMA_VERSION) {
    throw new StateFileError(
      `${filename} has temporal-dev schema version ${version}, but this temporal-dev reads version ${SCHEMA_VERSION} only: ` +
        'use the temporal-dev that wrote it, or remove the file to start empty',
    );
  }
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** JSON with bytes as {"$bytes": base64} (JSON.stringify would spell a Buffer out byte by byte). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, bytesReplacer);
}

function bytesReplacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  // `value` has been through Buffer#toJSON already; the holder still has the bytes.
  const raw = this[key];
  return raw instanceof Uint8Array ? { $bytes: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') } : value;
}

export function fromJson(text: string): unknown {
  return JSON.parse(text, (_key, value) => (typeof value?.$bytes === 'string' ? Buffer.from(value.$bytes, 'base64') : value));
}
