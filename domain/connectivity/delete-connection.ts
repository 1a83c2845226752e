import { sql } from 'kysely';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { companyForPipelines, findConnection } from './repository.ts';

/** Deletes a connection and its sealed secret; refused while syncs read from it or action types call it as their writeback webhook (connection_in_use). */
export async function deleteConnection(db: DbOrTrx, principal: Principal, namespace: string, id: string) {
  const company = await companyForPipelines(db, principal, namespace);
  const connection = await findConnection(db, company.id, id);
  const syncs = await db.selectFrom('data_syncs').select('name').where('connection_id', '=', id).orderBy('name').execute();
  const actionTypes = await db
    .selectFrom('action_types as a')
    .innerJoin('ontologies as o', 'o.id', 'a.ontology_id')
    .select('a.api_name')
    .where('o.company_id', '=', company.id)
    .where(sql<string>`a.definition #>> '{writebackWebhook,connection}'`, '=', connection.name)
    .orderBy('a.api_name')
    .execute();
  if (syncs.length || actionTypes.length) {
    const users = [...syncs.map((s) => s.name), ...actionTypes.map((a) => a.api_name)];
    throw new DomainError('connection_in_use', `Syncs or action types use ${id}: ${users.join(', ')}.`, {
      details: { syncs: syncs.map((s) => s.name), actionTypes: actionTypes.map((a) => a.api_name) },
    });
  }
  await db.deleteFrom('data_connections').where('id', '=', id).execute();
  return { deleted: true as const };
}
