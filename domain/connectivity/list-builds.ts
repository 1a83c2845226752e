import type { BuildView } from '../../schemas/connectivity.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { buildView } from './builds.ts';
import { companyForPipelines } from './repository.ts';

/** The company's latest builds, newest first (at most `limit`, 100 by default). */
export async function listBuilds(db: DbOrTrx, principal: Principal, namespace: string, limit: number): Promise<{ data: BuildView[] }> {
  const company = await companyForPipelines(db, principal, namespace);
  const ids = await db
    .selectFrom('data_builds')
    .select('id')
    .where('company_id', '=', company.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return { data: await Promise.all(ids.map((b) => buildView(db, company.id, b.id))) };
}

export async function getBuild(db: DbOrTrx, principal: Principal, namespace: string, id: string): Promise<BuildView> {
  const company = await companyForPipelines(db, principal, namespace);
  return buildView(db, company.id, id);
}
