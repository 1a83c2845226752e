import type { AssetSummary } from '../../schemas/modeling.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { authorizeAssetRead } from './access.ts';
import { assetRows, assetSummary, companyOf } from './repository.ts';

/** The company's world-model assets by name (metadata; `getAsset` reads one's document). */
export async function listAssets(db: DbOrTrx, principal: Principal, namespace: string): Promise<AssetSummary[]> {
  await authorizeAssetRead(db, principal, namespace);
  const company = await companyOf(db, namespace);
  return (await assetRows(db, company.id).orderBy('name').execute()).map(assetSummary);
}
