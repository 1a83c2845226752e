import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { companyForPipelines, findConnection } from './repository.ts';

/** Deletes a connection and its sealed secret; refused while syncs read from it (connection_in_use). */
export async function deleteConnection(db: DbOrTrx, principal: Principal, namespace: string, id: string) {
  const company = await companyForPipelines(db, principal, namespace);
  await findConnection(db, company.id, id);
  const syncs = await db.selectFrom('data_syncs').select('name').where('connection_id', '=', id).orderBy('name').execute();
  if (syncs.length) {
    throw new DomainError('connection_in_use', `Syncs read from ${id}: ${syncs.map((s) => s.name).join(', ')}.`, {
      details: { syncs: syncs.map((s) => s.name) },
    });
  }
  await db.deleteFrom('data_connections').where('id', '=', id).execute();
  return { deleted: true as const };
}
