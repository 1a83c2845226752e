import type { GenerateInput } from '../../schemas/modeling.ts';
import type { Db, DbOrTrx } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../security/index.ts';
import { readDocument, serializeDocument, storeDocument } from './documents.ts';
import { type SourceAsset, WORLD_GENERATORS } from './providers.ts';
import { assetRows, saveAsset } from './repository.ts';

export type GenerationOutcome =
  | { status: 'succeeded'; asset: string; sha256: string }
  | { status: 'failed'; error: string }
  | { status: 'already-finished' };

/**
 * Runs one accepted generation (the workflow's activity): reads its parts from the blob store,
 * asks the provider, stores the scene as the named asset and marks the generation done. Its
 * credits were counted when it was accepted and stay counted if it fails. A refusal by the domain
 * (a part removed since, a result too large) fails the generation for good; anything else throws,
 * and the workflow tries again. Running it twice is harmless: a finished generation is left alone.
 */
export async function runGeneration(
  deps: Pick<DomainDeps, 'blobs' | 'clock'> & { db: Db },
  generationId: string,
): Promise<GenerationOutcome> {
  const row = await deps.db.selectFrom('world_generations').selectAll().where('id', '=', generationId).executeTakeFirstOrThrow();
  if (row.status !== 'queued') return { status: 'already-finished' };
  const input = row.request as GenerateInput;
  const finish = (trx: DbOrTrx, values: { status: 'succeeded' | 'failed'; error: string | null }) =>
    trx
      .updateTable('world_generations')
      .set({ ...values, finished_at: deps.clock.now() })
      .where('id', '=', generationId)
      .where('status', '=', 'queued')
      .execute();
  try {
    const rows = await assetRows(deps.db, row.company_id)
      .where('name', 'in', [...new Set(input.parts.map((p) => p.asset))])
      .execute();
    const sources = new Map<string, SourceAsset>();
    for (const r of rows)
      sources.set(r.name, { name: r.name, sha256: r.sha256.toString('hex'), document: await readDocument(deps, r.sha256) });
    const doc = serializeDocument(WORLD_GENERATORS[input.provider].generate(input, sources, generationId));
    await storeDocument(deps, doc);
    await deps.db.transaction().execute(async (trx) => {
      await saveAsset(
        trx,
        {
          id: newId('wasset'),
          companyId: row.company_id,
          name: row.asset_name,
          sha256: doc.sha256,
          size: doc.bytes.length,
          createdBy: row.created_by,
          generationId,
        },
        deps.clock.now(),
      );
      await finish(trx, { status: 'succeeded', error: null });
    });
    return { status: 'succeeded', asset: row.asset_name, sha256: doc.sha256.toString('hex') };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    await finish(deps.db, { status: 'failed', error: err.message });
    return { status: 'failed', error: err.message };
  }
}
