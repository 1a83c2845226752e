import { type AssetSummary, MODELING_LIMITS, type PutAssetInput } from '../../schemas/modeling.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { serializeDocument, storeDocument } from './documents.ts';
import { assetSummary, companyOf, findAsset, saveAsset } from './repository.ts';

/**
 * Uploads a scene document as the company's named asset, or replaces it. The bytes go to the blob
 * store before the row (a dry run stores nothing: the plan is the summary the row would have).
 */
export async function putAsset(
  deps: Pick<DomainDeps, 'blobs' | 'clock'> & { db: DbOrTrx },
  principal: Principal,
  namespace: string,
  name: string,
  input: PutAssetInput,
  dryRun: boolean,
): Promise<{ created: boolean; asset: AssetSummary }> {
  authorize(principal, 'world-asset.manage', { namespace });
  const company = await companyOf(deps.db, namespace);
  const doc = serializeDocument(input.document);
  const existing = await findAsset(deps.db, company.id, name);
  if (!existing) {
    const count = await deps.db
      .selectFrom('world_assets')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('company_id', '=', company.id)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MODELING_LIMITS.assetsPerCompany) {
      throw new DomainError('conflict', `A company may hold at most ${MODELING_LIMITS.assetsPerCompany} world-model assets.`, {
        details: { limit: MODELING_LIMITS.assetsPerCompany },
      });
    }
  }
  if (!dryRun) await storeDocument(deps, doc);
  const now = deps.clock.now();
  const row = await saveAsset(
    deps.db,
    {
      id: newId('wasset'),
      companyId: company.id,
      name,
      sha256: doc.sha256,
      size: doc.bytes.length,
      createdBy: principal.account.id,
      generationId: null,
    },
    now,
  );
  return { created: !existing, asset: assetSummary(row) };
}
