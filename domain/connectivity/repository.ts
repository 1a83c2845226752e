import type { ConnectionView, SyncView } from '../../schemas/connectivity.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import type { ConnectivitySettings } from './settings.ts';
import { httpsSource } from './sources/https-source.ts';
import { postgresSource } from './sources/postgres-source.ts';
import { type S3Settings, s3Source } from './sources/s3-source.ts';
import type { SourceReader } from './sources/source.ts';

/** The company a namespace names, for its data developers (connectivity.manage); organization_not_found when none. */
export async function companyForPipelines(db: DbOrTrx, principal: Principal, namespace: string) {
  authorize(principal, 'connectivity.manage', { namespace });
  const company = await db.selectFrom('companies').select(['id', 'cell_id']).where('cell_id', '=', namespace).executeTakeFirst();
  if (!company) throw new DomainError('organization_not_found', `No company ${namespace}.`, { details: { organization: namespace } });
  return company;
}

export const connectionNotFound = (id: string) =>
  new DomainError('connection_not_found', `No data connection ${id}.`, { details: { connectionId: id } });

export const connectionRows = (db: DbOrTrx) =>
  db.selectFrom('data_connections').select(['id', 'company_id', 'name', 'kind', 'settings', 'secret', 'secret_key_id', 'created_at']);

export type ConnectionRow = Awaited<ReturnType<ReturnType<typeof connectionRows>['executeTakeFirstOrThrow']>>;

export const connectionView = (r: ConnectionRow): ConnectionView => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  settings: r.settings,
  hasSecret: r.secret !== null,
  createdAt: r.created_at.toISOString(),
});

export async function findConnection(db: DbOrTrx, companyId: string, id: string): Promise<ConnectionRow> {
  const row = await connectionRows(db).where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  if (!row) throw connectionNotFound(id);
  return row;
}

/** The secret fields of a connection, opened (only a source reader or a webhook call sees them). */
export function secretsOf(settings: ConnectivitySettings, row: ConnectionRow): Record<string, string> {
  if (!row.secret || !row.secret_key_id) return {};
  return JSON.parse(settings.secrets.open({ keyId: row.secret_key_id, sealed: row.secret }, row.id)) as Record<string, string>;
}

/**
 * A source's error message with the connection's secrets taken out (the whole values, and a
 * connection string's password alone, as drivers may quote either): what tests, job errors and
 * logs may show.
 */
export function redactSecrets(settings: ConnectivitySettings, row: ConnectionRow, text: string): string {
  const values = Object.values(secretsOf(settings, row));
  for (const value of values) {
    if (!/^postgres(ql)?:/.test(value)) continue;
    const password = URL.canParse(value) ? new URL(value).password : '';
    if (password) values.push(password, decodeURIComponent(password));
  }
  return values.filter((v) => v.length >= 4).reduce((out, v) => out.split(v).join('[redacted]'), text);
}

/** A reader of the connection's source; `signal` ends its connections (a cancelled activity). */
export function readerFor(settings: ConnectivitySettings, row: ConnectionRow, signal?: AbortSignal): SourceReader {
  const secret = secretsOf(settings, row);
  const opts = { privateNetworks: settings.privateNetworks, ...(signal ? { signal } : {}) };
  switch (row.kind) {
    case 'postgresql':
      return postgresSource(secret.connectionString!, opts);
    case 's3':
      return s3Source(row.settings as unknown as S3Settings, secret.secretAccessKey, opts);
    case 'https':
      return httpsSource((row.settings as { url: string }).url, secret.authorization, opts);
  }
}

export const syncNotFound = (id: string) => new DomainError('sync_not_found', `No sync ${id}.`, { details: { syncId: id } });

export const syncRows = (db: DbOrTrx) =>
  db
    .selectFrom('data_syncs')
    .select([
      'id',
      'company_id',
      'connection_id',
      'name',
      'object_type',
      'source',
      'mapping',
      'mode',
      'cursor_column',
      'page_size',
      'schedule',
      'cursor',
      'created_at',
    ]);

export type SyncRow = Awaited<ReturnType<ReturnType<typeof syncRows>['executeTakeFirstOrThrow']>>;

export const syncView = (r: SyncRow): SyncView => ({
  id: r.id,
  name: r.name,
  connectionId: r.connection_id,
  objectType: r.object_type,
  source: r.source,
  mapping: r.mapping,
  mode: r.mode,
  cursorColumn: r.cursor_column,
  pageSize: r.page_size,
  schedule: r.schedule,
  cursor: r.cursor ?? null,
  createdAt: r.created_at.toISOString(),
});

export async function findSync(db: DbOrTrx, companyId: string, id: string): Promise<SyncRow> {
  const row = await syncRows(db).where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  if (!row) throw syncNotFound(id);
  return row;
}

/** A unique-name violation of data_connections or data_syncs as connection_name_exists. */
export function nameTaken(err: unknown, name: string): never {
  if ((err as { code?: string }).code === '23505') {
    throw new DomainError('connection_name_exists', `The company already has one named ${name}.`, { details: { name } });
  }
  throw err;
}
