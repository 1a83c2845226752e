import type { DbOrTrx } from '../db/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { noCamera } from './camera-access.ts';
import { findCompanyByCell } from './repository.ts';

/** Removes a camera and its sealed credential; returns its id (the caller ends its live views once committed). */
export async function deleteCamera(db: DbOrTrx, principal: Principal, namespace: string, name: string): Promise<string> {
  authorize(principal, 'camera.manage', { namespace });
  const company = await findCompanyByCell(db, namespace);
  const deleted =
    company &&
    (await db.deleteFrom('cameras').where('company_id', '=', company.id).where('name', '=', name).returning('id').executeTakeFirst());
  if (!deleted) throw noCamera(namespace, name);
  return deleted.id;
}
