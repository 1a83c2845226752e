import type { BuildView } from '../../schemas/connectivity.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { buildNotFound, buildView, endBuild } from './builds.ts';
import { companyForPipelines } from './repository.ts';

/**
 * Cancels a queued or running build: it and its unfinished jobs are CANCELLED at once, its run is
 * cancelled through the outbox (a page being written commits or not as a whole; pages committed
 * before stay, as the objects they wrote).
 */
export async function cancelBuild(db: DbOrTrx, principal: Principal, namespace: string, id: string): Promise<BuildView> {
  const company = await companyForPipelines(db, principal, namespace);
  const build = await db
    .selectFrom('data_builds')
    .select('status')
    .where('company_id', '=', company.id)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!build) throw buildNotFound(id);
  if (build.status !== 'QUEUED' && build.status !== 'RUNNING') {
    throw new DomainError('build_finished', `Build ${id} is ${build.status}.`, { details: { status: build.status } });
  }
  await endBuild(db, id, 'CANCELLED');
  await enqueue(db, { topic: 'data-build.cancelled', key: id, payload: { buildId: id } });
  return buildView(db, company.id, id);
}
