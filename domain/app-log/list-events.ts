import { type RawBuilder, sql } from 'kysely';
import type { FeedbackStatus, ListEventsQuery, LogEventView, LogKind } from '../../schemas/app-log.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { logScope } from './log-app.ts';

export interface Row {
  id: string;
  app: string;
  at_key: string;
  kind: LogKind;
  source: 'app' | 'service';
  name: string;
  account_id: string | null;
  username: string | null;
  version: string | null;
  channel: 'test' | 'production' | null;
  data: unknown;
  status: FeedbackStatus | null;
  status_by: string | null;
  status_at: Date | null;
}

/**
 * Every log record of the store plus the release records, which keep their own table and writer:
 * deploys (`app_versions`) and channel changes (`release_records`) read as kind `release`, named
 * `deploy`, `enter_test`, `publish` or `rollback`. Filters on the outer query are pushed into each
 * branch, so each uses its own index and a kind filter skips the branches it cannot match.
 */
const LOG = sql`(
  SELECT id, app_id, at, kind, source, name, account_id, version_id, channel, data, status, status_by, status_at
  FROM app_log_events
  UNION ALL
  SELECT r.id, r.app_id, r.created_at, 'release', 'service', r.action, r.actor_account_id, r.to_version_id, r.channel,
         jsonb_build_object('from', fv.version, 'notes', r.notes), NULL::text, NULL::text, NULL::timestamptz
  FROM release_records r LEFT JOIN app_versions fv ON fv.id = r.from_version_id
  UNION ALL
  SELECT v.id, v.app_id, v.created_at, 'release', 'service', 'deploy', v.created_by, v.id, NULL::text,
         jsonb_build_object('build', v.build, 'notes', v.notes), NULL::text, NULL::text, NULL::timestamptz
  FROM app_versions v
)`;

/** Cursor: the last row's time (microseconds, UTC) and id, base64url. */
export const encodeCursor = (row: Pick<Row, 'at_key' | 'id'>) => Buffer.from(`${row.at_key} ${row.id}`).toString('base64url');
export function decodeCursor(cursor: string): { at: string; id: string } {
  const [at, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split(' ');
  if (!at || !id || extra !== undefined || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(at)) {
    throw new DomainError('invalid_payload', 'cursor is not one this service returned.', { details: { field: 'cursor' } });
  }
  return { at, id };
}

export function toView(row: Row): LogEventView {
  return {
    id: row.id,
    app: row.app,
    at: new Date(row.at_key).toISOString(),
    kind: row.kind,
    name: row.name,
    source: row.source,
    visitor: row.account_id ? { id: row.account_id, username: row.username } : null,
    version: row.version,
    channel: row.channel,
    data: row.data,
    status: row.status,
    statusBy: row.status_by,
    statusAt: row.status_at?.toISOString() ?? null,
  };
}

/** Log records matching `where`, newest first (oldest first with `ascending`), with the names a reader needs. */
export async function selectLog(db: DbOrTrx, where: RawBuilder<unknown>[], limit: number, ascending = false): Promise<Row[]> {
  const result = await sql<Row>`
    SELECT e.id, a.slug AS app, to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at_key,
           e.kind, e.source, e.name, e.account_id, acc.username, v.version, e.channel, e.data, e.status, e.status_by, e.status_at
    FROM ${LOG} e
    JOIN apps a ON a.id = e.app_id
    LEFT JOIN accounts acc ON acc.id = e.account_id
    LEFT JOIN app_versions v ON v.id = e.version_id
    WHERE ${sql.join(where, sql` AND `)}
    ORDER BY ${ascending ? sql`e.at, e.id` : sql`e.at DESC, e.id DESC`}
    LIMIT ${limit}`.execute(db);
  return result.rows;
}

/** The filters of a log query, as conditions: one app or every app of the namespace, once the caller may read its log. */
export async function logFilters(
  db: DbOrTrx,
  principal: Principal,
  namespace: string,
  query: Omit<ListEventsQuery, 'cursor' | 'limit'>,
): Promise<RawBuilder<unknown>[]> {
  const appId = await logScope(db, principal, namespace, query.slug);
  const where = [appId ? sql`e.app_id = ${appId}` : sql`e.app_id IN (SELECT id FROM apps WHERE namespace = ${namespace})`];
  if (query.kind) where.push(sql`e.kind = ${query.kind}`);
  if (query.name) where.push(sql`e.name = ${query.name}`);
  if (query.visitor) where.push(sql`e.account_id = ${query.visitor}`);
  if (query.username) where.push(sql`lower(acc.username) = lower(${query.username})`);
  if (query.version) where.push(sql`v.version = ${query.version}`);
  if (query.from) where.push(sql`e.at >= ${new Date(query.from)}`);
  if (query.to) where.push(sql`e.at < ${new Date(query.to)}`);
  if (query.status) where.push(sql`e.status = ${query.status}`);
  return where;
}

/** GET events: one app or every app of the namespace, filtered, newest first, a page at a time. */
export async function listEvents(
  db: DbOrTrx,
  principal: Principal,
  namespace: string,
  query: ListEventsQuery,
): Promise<{ events: LogEventView[]; nextCursor: string | null }> {
  const where = await logFilters(db, principal, namespace, query);
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    where.push(sql`(e.at, e.id) < (${c.at}::timestamptz, ${c.id})`);
  }
  const rows = await selectLog(db, where, query.limit + 1);
  const page = rows.slice(0, query.limit);
  return { events: page.map(toView), nextCursor: rows.length > query.limit ? encodeCursor(page[page.length - 1]!) : null };
}
