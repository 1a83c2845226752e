import type { ConnectionView } from '../../schemas/connectivity.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { companyForPipelines, connectionRows, connectionView, findConnection } from './repository.ts';

/** The company's data connections by name (at most 500: a company has a handful). */
export async function listConnections(db: DbOrTrx, principal: Principal, namespace: string): Promise<{ data: ConnectionView[] }> {
  const company = await companyForPipelines(db, principal, namespace);
  const rows = await connectionRows(db).where('company_id', '=', company.id).orderBy('name').limit(500).execute();
  return { data: rows.map(connectionView) };
}

export async function getConnection(db: DbOrTrx, principal: Principal, namespace: string, id: string): Promise<ConnectionView> {
  const company = await companyForPipelines(db, principal, namespace);
  return connectionView(await findConnection(db, company.id, id));
}
