import type { BuildView, CreateBuildInput } from '../../schemas/connectivity.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { buildView, insertBuild } from './builds.ts';
import { companyForPipelines, syncNotFound } from './repository.ts';

const invalid = (path: string, message: string) =>
  new DomainError('invalid_payload', message, { details: { problems: [{ path, code: 'invalid', message }] } });

/** The jobs in an order where each comes after what it depends on (Kahn, stable on the given order); a cycle is refused. */
function dependencyOrder(jobs: CreateBuildInput['jobs']): { syncId: string; dependsOn: string[] }[] {
  const ids = new Set<string>();
  jobs.forEach((j, i) => {
    if (ids.has(j.syncId)) throw invalid(`jobs[${i}].syncId`, `${j.syncId} is listed twice.`);
    ids.add(j.syncId);
  });
  for (const [i, j] of jobs.entries()) {
    for (const [k, d] of j.dependsOn.entries()) {
      if (!ids.has(d) || d === j.syncId) throw invalid(`jobs[${i}].dependsOn[${k}]`, `${d} is not another job of this build.`);
    }
  }
  const done = new Set<string>();
  const ordered: { syncId: string; dependsOn: string[] }[] = [];
  while (ordered.length < jobs.length) {
    const next = jobs.find((j) => !done.has(j.syncId) && j.dependsOn.every((d) => done.has(d)));
    if (!next) throw invalid('jobs', 'The dependencies form a cycle.');
    done.add(next.syncId);
    ordered.push(next);
  }
  return ordered;
}

/** Records a build of the company's syncs and asks for its run (through the outbox); answers it with its workflow id. */
export async function createBuild(db: DbOrTrx, principal: Principal, namespace: string, input: CreateBuildInput): Promise<BuildView> {
  const company = await companyForPipelines(db, principal, namespace);
  const ordered = dependencyOrder(input.jobs);
  const syncs = await db
    .selectFrom('data_syncs')
    .select(['id', 'name'])
    .where('company_id', '=', company.id)
    .where(
      'id',
      'in',
      ordered.map((j) => j.syncId),
    )
    .execute();
  const names = new Map(syncs.map((s) => [s.id, s.name]));
  const missing = ordered.find((j) => !names.has(j.syncId));
  if (missing) throw syncNotFound(missing.syncId);
  const position = new Map(ordered.map((j, i) => [j.syncId, i]));
  const buildId = await insertBuild(db, {
    companyId: company.id,
    trigger: 'api',
    requestedBy: principal.account.id,
    jobs: ordered.map((j) => ({ syncId: j.syncId, syncName: names.get(j.syncId)!, dependsOn: j.dependsOn.map((d) => position.get(d)!) })),
  });
  await enqueue(db, { topic: 'data-build.requested', key: buildId, payload: { buildId, companyId: company.id } });
  return buildView(db, company.id, buildId);
}
