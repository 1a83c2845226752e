import net from 'node:net';
import pg from 'pg';
import { DomainError } from '../../errors.ts';
import { asAddressRefusal, checkAddressLiteral, outboundLookup } from './outbound.ts';
import { type ReadSpec, SOURCE_TIMEOUT_MS, type SourcePage, type SourceReader } from './source.ts';

// A company's PostgreSQL as a source: keyset pages in (cursor column, key) order for incremental
// syncs, key order for full refreshes. Positions are the values' text forms, compared by
// PostgreSQL in the columns' own types, so timestamps keep their microseconds.

const KEY = '__svc_key';
const CURSOR = '__svc_cursor';

/** The host a connection string names; `host`/`hostaddr` parameters (which would bypass the address rule) are refused. */
function hostOf(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new DomainError('invalid_payload', 'The connection string is not a postgres:// URL.');
  }
  if (url.searchParams.has('host') || url.searchParams.has('hostaddr') || url.hostname === '') {
    throw new DomainError('invalid_payload', 'Name the server in the connection string’s host part (no host or hostaddr parameter).');
  }
  return url.hostname;
}

/** A socket whose `connect(port, host)` (as pg calls it) resolves the host through the guarded lookup. */
function guardedSocket(privateNetworks: boolean): net.Socket {
  const socket = new net.Socket();
  const connect = socket.connect.bind(socket);
  socket.connect = ((port: number, host: string) =>
    connect({ port, host, lookup: outboundLookup(privateNetworks) })) as typeof socket.connect;
  return socket;
}

export function postgresSource(connectionString: string, opts: { privateNetworks: boolean; signal?: AbortSignal }): SourceReader {
  let client: pg.Client | undefined;
  const connect = async () => {
    if (client) return client;
    const host = hostOf(connectionString);
    checkAddressLiteral(host, opts.privateNetworks);
    const c = new pg.Client({
      connectionString,
      // The server's name is resolved by the guarded lookup when the socket connects: the address connected to is the one checked.
      stream: () => guardedSocket(opts.privateNetworks),
      connectionTimeoutMillis: SOURCE_TIMEOUT_MS,
      statement_timeout: SOURCE_TIMEOUT_MS * 3,
      application_name: 'svc-data-sync',
    });
    // A cancelled activity ends its connection: the query in flight fails at once.
    opts.signal?.addEventListener('abort', () => void c.end().catch(() => {}), { once: true });
    c.on('error', () => {});
    await c.connect().catch((err: unknown) => {
      throw asAddressRefusal(err, host);
    });
    // Reads only: a sync never writes to the company's database.
    await c.query('SET default_transaction_read_only = on');
    client = c;
    return c;
  };
  const id = (name: string) => pg.escapeIdentifier(name);
  return {
    async probe() {
      const c = await connect();
      const r = await c.query<{ db: string; version: string }>('SELECT current_database() AS db, current_setting($1) AS version', [
        'server_version',
      ]);
      return `Connected to database ${r.rows[0]!.db} (PostgreSQL ${r.rows[0]!.version}).`;
    },
    async readPage(spec: ReadSpec, cursor: unknown): Promise<SourcePage> {
      const c = await connect();
      const { table, schema } = spec.source as { table: string; schema: string };
      const key = id(spec.keyColumn);
      const at = cursor as { key: string; value?: string } | null;
      const incremental = spec.mode === 'incremental' && spec.cursorColumn !== null;
      const cur = incremental ? id(spec.cursorColumn!) : '';
      const columns = [...new Set(spec.columns)].map(id).join(', ');
      const select = `SELECT ${columns}, ${key}::text AS ${KEY}${incremental ? `, ${cur}::text AS ${CURSOR}` : ''} FROM ${id(schema)}.${id(table)}`;
      const params: unknown[] = [];
      let where = incremental ? `WHERE ${cur} IS NOT NULL` : '';
      if (at && incremental) {
        where = `WHERE (${cur}, ${key}) > ($1, $2)`;
        params.push(at.value, at.key);
      } else if (at) {
        where = `WHERE ${key} > $1`;
        params.push(at.key);
      }
      params.push(spec.pageSize);
      const order = incremental ? `${cur}, ${key}` : key;
      const result = await c.query(`${select} ${where} ORDER BY ${order} LIMIT $${params.length}`, params);
      const rows = result.rows as Record<string, unknown>[];
      const last = rows.at(-1);
      const next = last ? { key: last[KEY] as string, ...(incremental ? { value: last[CURSOR] as string } : {}) } : at;
      return {
        rows: rows.map(({ [KEY]: _k, [CURSOR]: _c, ...values }) => values),
        cursor: next,
        done: rows.length < spec.pageSize,
      };
    },
    async close() {
      await client?.end().catch(() => {});
      client = undefined;
    },
  };
}
