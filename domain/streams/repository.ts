import type { StreamBindingView, StreamField, StreamView } from '../../schemas/streams.ts';
import { loadVersion } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

/** The streams an app ticket's manifest lists; null for other credentials. */
async function appStreamsOf(db: DbOrTrx, principal: Principal): Promise<readonly string[] | null> {
  if (principal.kind !== 'ticket') return null;
  return (await loadVersion(db, principal.ticket.versionId)).manifest.streams;
}

/**
 * The company a namespace names, once the policy let the caller do `action` on its stream `stream`
 * (null: its streams as a whole); organization_not_found when there is none.
 */
export async function companyForStreams(
  db: DbOrTrx,
  principal: Principal,
  action: 'stream.manage' | 'stream.push',
  namespace: string,
  stream: string | null,
) {
  const appStreams = action === 'stream.push' ? await appStreamsOf(db, principal) : null;
  authorize(principal, action, { namespace, stream, appStreams });
  const company = await db.selectFrom('companies').select(['id', 'cell_id']).where('cell_id', '=', namespace).executeTakeFirst();
  if (!company) throw new DomainError('organization_not_found', `No company ${namespace}.`, { details: { organization: namespace } });
  return company;
}

export const streamNotFound = (namespace: string, name: string) =>
  new DomainError('stream_not_found', `No stream ${name} in ${namespace}.`, { details: { namespace, stream: name } });

const streamRows = (db: DbOrTrx) =>
  db.selectFrom('data_streams').select(['id', 'company_id', 'name', 'description', 'fields', 'last_seq', 'last_pushed_at', 'created_at']);

export type StreamRow = Awaited<ReturnType<ReturnType<typeof streamRows>['executeTakeFirstOrThrow']>>;

/** The company's stream of that name (locked FOR UPDATE when `lock`: a push, a binding or a delete), or stream_not_found. */
export async function findStream(db: DbOrTrx, company: { id: string; cell_id: string }, name: string, lock = false): Promise<StreamRow> {
  const query = streamRows(db).where('company_id', '=', company.id).where('name', '=', name);
  const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
  if (!row) throw streamNotFound(company.cell_id, name);
  return row;
}

export const bindingRows = (db: DbOrTrx) =>
  db.selectFrom('data_stream_bindings').select(['stream_id', 'object_type', 'mapping', 'created_at']).orderBy('object_type');

type BindingRow = Awaited<ReturnType<ReturnType<typeof bindingRows>['executeTakeFirstOrThrow']>>;

export const bindingView = (b: BindingRow): StreamBindingView => ({
  objectType: b.object_type,
  mapping: b.mapping,
  createdAt: b.created_at.toISOString(),
});

/** The streams with their bindings, as answered. */
export async function streamViews(db: DbOrTrx, rows: readonly StreamRow[]): Promise<StreamView[]> {
  const bindings = rows.length
    ? await bindingRows(db)
        .where(
          'stream_id',
          'in',
          rows.map((r) => r.id),
        )
        .execute()
    : [];
  return rows.map((r) => ({
    name: r.name,
    description: r.description,
    fields: r.fields as StreamField[],
    bindings: bindings.filter((b) => b.stream_id === r.id).map(bindingView),
    lastSequence: r.last_seq,
    lastPushedAt: r.last_pushed_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
  }));
}

export async function streamView(db: DbOrTrx, row: StreamRow): Promise<StreamView> {
  return (await streamViews(db, [row]))[0]!;
}

/** The company's streams by name. */
export const companyStreams = (db: DbOrTrx, companyId: string) => streamRows(db).where('company_id', '=', companyId).orderBy('name');
