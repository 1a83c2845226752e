import type { DbOrTrx } from '../db/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { companyOf, noAsset } from './repository.ts';

/** Removes a world-model asset (its bytes stay in the blob store, which other rows may share by hash). */
export async function deleteAsset(db: DbOrTrx, principal: Principal, namespace: string, name: string): Promise<void> {
  authorize(principal, 'world-asset.manage', { namespace });
  const company = await companyOf(db, namespace);
  const gone = await db.deleteFrom('world_assets').where('company_id', '=', company.id).where('name', '=', name).executeTakeFirst();
  if (gone.numDeletedRows === 0n) throw noAsset(namespace, name);
}
