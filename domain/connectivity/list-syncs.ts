import type { SyncView } from '../../schemas/connectivity.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { companyForPipelines, findSync, syncRows, syncView } from './repository.ts';

/** The company's syncs by name (at most 500). */
export async function listSyncs(db: DbOrTrx, principal: Principal, namespace: string): Promise<{ data: SyncView[] }> {
  const company = await companyForPipelines(db, principal, namespace);
  const rows = await syncRows(db).where('company_id', '=', company.id).orderBy('name').limit(500).execute();
  return { data: rows.map(syncView) };
}

export async function getSync(db: DbOrTrx, principal: Principal, namespace: string, id: string): Promise<SyncView> {
  const company = await companyForPipelines(db, principal, namespace);
  return syncView(await findSync(db, company.id, id));
}
