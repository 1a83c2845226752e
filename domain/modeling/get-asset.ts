import type { AssetView } from '../../schemas/modeling.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { authorizeAssetRead } from './access.ts';
import { readDocument } from './documents.ts';
import { assetSummary, companyOf, findAsset, noAsset } from './repository.ts';

/** One world-model asset of the company with its scene document, read from the blob store. */
export async function getAsset(
  deps: Pick<DomainDeps, 'blobs'> & { db: DbOrTrx },
  principal: Principal,
  namespace: string,
  name: string,
): Promise<AssetView> {
  await authorizeAssetRead(deps.db, principal, namespace);
  const company = await companyOf(deps.db, namespace);
  const row = await findAsset(deps.db, company.id, name);
  if (!row) throw noAsset(namespace, name);
  return { ...assetSummary(row), document: await readDocument(deps, row.sha256) };
}
