import type { AssetSummary, GenerationView, WorldProvider } from '../../schemas/modeling.ts';
import { worldGenerationWorkflowId } from '../../schemas/workflow-keys.ts';
import type { DbOrTrx, WorldAssetsTable, WorldGenerationsTable } from '../db/index.ts';
import { DomainError } from '../errors.ts';

export type AssetRow = Omit<WorldAssetsTable, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date };
export type GenerationRow = Omit<WorldGenerationsTable, 'created_at' | 'request'> & { created_at: Date; request: unknown };

/** The company of a namespace, or organization_not_found (`public` has no assets of its own). */
export async function companyOf(db: DbOrTrx, namespace: string): Promise<{ id: string }> {
  const company = await db.selectFrom('companies').select(['id']).where('cell_id', '=', namespace).executeTakeFirst();
  if (!company) throw new DomainError('organization_not_found', `No company ${namespace}.`, { details: { organization: namespace } });
  return company;
}

export const assetRows = (db: DbOrTrx, companyId: string) => db.selectFrom('world_assets').selectAll().where('company_id', '=', companyId);

export const findAsset = (db: DbOrTrx, companyId: string, name: string): Promise<AssetRow | undefined> =>
  assetRows(db, companyId).where('name', '=', name).executeTakeFirst();

export const noAsset = (namespace: string, name: string) =>
  new DomainError('world_asset_not_found', `No world-model asset ${name} in ${namespace}.`, { details: { namespace, asset: name } });

export function assetSummary(row: AssetRow): AssetSummary {
  return {
    name: row.name,
    sha256: row.sha256.toString('hex'),
    size: row.size,
    generationId: row.generation_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function generationView(row: GenerationRow): GenerationView {
  return {
    id: row.id,
    provider: row.provider as WorldProvider,
    asset: row.asset_name,
    status: row.status,
    credits: row.credits,
    workflowId: worldGenerationWorkflowId(row.id),
    error: row.error,
    createdAt: row.created_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}

/** Creates the named asset, or points it at new bytes (an asset is replaced as a whole). */
export async function saveAsset(
  db: DbOrTrx,
  asset: {
    id: string;
    companyId: string;
    name: string;
    sha256: Buffer;
    size: number;
    createdBy: string | null;
    generationId: string | null;
  },
  now: Date,
): Promise<AssetRow> {
  return db
    .insertInto('world_assets')
    .values({
      id: asset.id,
      company_id: asset.companyId,
      name: asset.name,
      sha256: asset.sha256,
      size: asset.size,
      generation_id: asset.generationId,
      created_by: asset.createdBy,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['company_id', 'name']).doUpdateSet({
        sha256: asset.sha256,
        size: asset.size,
        generation_id: asset.generationId,
        updated_at: now,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}
