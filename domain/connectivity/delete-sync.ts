import type { DbOrTrx } from '../db/index.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { companyForPipelines, findSync } from './repository.ts';

/** Deletes a sync (its objects stay; builds keep their jobs by name); its schedule is removed through the outbox. */
export async function deleteSync(db: DbOrTrx, principal: Principal, namespace: string, id: string) {
  const company = await companyForPipelines(db, principal, namespace);
  const sync = await findSync(db, company.id, id);
  await db.deleteFrom('data_syncs').where('id', '=', id).execute();
  if (sync.schedule) await enqueue(db, { topic: 'data-sync.changed', key: id, payload: { syncId: id } });
  return { deleted: true as const };
}
