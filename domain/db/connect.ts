import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database.ts';

// timestamptz as Date (pg's default) and int8 as number: our counters never pass 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface ConnectOptions {
  connectionString: string;
  maxConnections?: number;
  /** Upper bound on any one statement, so a stuck query surfaces as a timeout error. */
  statementTimeoutMs?: number;
  /** Errors of pooled connections, idle or checked out (server restart, terminated backend); the pool replaces them. */
  onIdleError?: (err: Error) => void;
}

export function connectDatabase(opts: ConnectOptions): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.maxConnections ?? 10,
    statement_timeout: opts.statementTimeoutMs ?? 15_000,
    connectionTimeoutMillis: 10_000,
  });
  // Without a listener, an idle connection killed by the server would crash the process.
  pool.on('error', (err) => opts.onIdleError?.(err));
  // The pool listens only while a connection is idle: one lost while checked out between two
  // statements (a transaction awaiting its handler) emitted an unhandled error and ended the
  // process. Its next statement fails instead, and the pool drops it when it comes back.
  // An idle one is reported by the pool's own listener above, so each loss is reported once.
  const checkedOut = new WeakSet<object>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_err, client) => checkedOut.delete(client));
  pool.on('connect', (client) =>
    client.on('error', (err) => {
      if (checkedOut.has(client)) opts.onIdleError?.(err);
    }),
  );
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
