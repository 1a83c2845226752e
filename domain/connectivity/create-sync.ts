import type { CreateSyncInput, SyncView } from '../../schemas/connectivity.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { findObjectTypeRecord, findOntologyOfCompany } from '../ontology/index.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { checkMapping, invalidAt } from './mapping.ts';
import { companyForPipelines, findConnection, nameTaken, syncRows, syncView } from './repository.ts';

/** The source shape each connection kind reads. */
const SOURCE_KEY = { postgresql: 'table', s3: 'pattern', https: null } as const;

/**
 * Creates a sync of a connection's source into an object type of the company: the mapping must
 * name existing properties and the primary key; incremental PostgreSQL syncs name their cursor
 * column. A schedule is registered as a Temporal Schedule (through the outbox).
 */
export async function createSync(db: DbOrTrx, principal: Principal, namespace: string, input: CreateSyncInput): Promise<SyncView> {
  const company = await companyForPipelines(db, principal, namespace);
  const connection = await findConnection(db, company.id, input.connectionId);
  const ontology = await findOntologyOfCompany(db, company.id);
  const type = ontology && (await findObjectTypeRecord(db, ontology.id, input.objectType));
  if (!type) {
    throw new DomainError('object_type_not_found', `No object type ${input.objectType}.`, { details: { objectType: input.objectType } });
  }
  checkMapping(type, input.mapping);
  const wanted = SOURCE_KEY[connection.kind];
  const has = (key: string) => Object.hasOwn(input.source, key);
  if (wanted ? !has(wanted) : has('table') || has('pattern')) {
    throw invalidAt('source', `A ${connection.kind} connection's source is ${wanted ? `{${wanted}, …}` : '{itemsPath?}'}.`);
  }
  if (input.mode === 'incremental' && connection.kind === 'postgresql' && !input.cursorColumn) {
    throw invalidAt('cursorColumn', 'An incremental PostgreSQL sync names its cursor column.');
  }
  if (input.mode === 'incremental' && connection.kind === 'https') {
    throw invalidAt('mode', 'An HTTPS endpoint is read whole: its syncs are full refreshes.');
  }
  if (input.cursorColumn && (input.mode !== 'incremental' || connection.kind !== 'postgresql')) {
    throw invalidAt('cursorColumn', 'Only incremental PostgreSQL syncs have a cursor column.');
  }
  const id = newId('dsy');
  await db
    .insertInto('data_syncs')
    .values({
      id,
      company_id: company.id,
      connection_id: connection.id,
      name: input.name,
      object_type: type.apiName,
      source: JSON.stringify(input.source),
      mapping: JSON.stringify(input.mapping),
      mode: input.mode,
      cursor_column: input.cursorColumn ?? null,
      page_size: input.pageSize,
      schedule: input.schedule,
      created_by: principal.account.id,
    })
    .execute()
    .catch((err: unknown) => nameTaken(err, input.name));
  if (input.schedule) await enqueue(db, { topic: 'data-sync.changed', key: id, payload: { syncId: id } });
  return syncView(await syncRows(db).where('id', '=', id).executeTakeFirstOrThrow());
}
