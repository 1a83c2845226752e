import type { AppSummary } from '../../schemas/apps.ts';
import type { DbOrTrx } from '../db/database.ts';
import type { Principal } from '../principal.ts';
import { readableNamespaces } from './namespace-access.ts';

/** Apps the caller may read (its company's namespace, plus public for platform staff), by namespace and slug. */
export async function listApps(db: DbOrTrx, principal: Principal): Promise<AppSummary[]> {
  const namespaces = readableNamespaces(principal);
  if (namespaces.length === 0) return [];
  const rows = await db
    .selectFrom('apps as a')
    .innerJoin('app_versions as latest', (j) =>
      j
        .onRef('latest.app_id', '=', 'a.id')
        .on((eb) =>
          eb('latest.build', '=', eb.selectFrom('app_versions').select(eb.fn.max('build').as('b')).whereRef('app_id', '=', 'a.id')),
        ),
    )
    .leftJoin('app_versions as t', 't.id', 'a.test_version_id')
    .leftJoin('app_versions as p', 'p.id', 'a.production_version_id')
    .select([
      'a.namespace',
      'a.slug',
      'latest.version as latest_version',
      'latest.build as latest_build',
      'latest.created_at as updated_at',
      't.version as test_version',
      't.build as test_build',
      'p.version as prod_version',
      'p.build as prod_build',
      (eb) => eb.fn.coalesce('p.manifest', 'latest.manifest').as('manifest'),
    ])
    .where('a.namespace', 'in', namespaces)
    .orderBy('a.namespace')
    .orderBy('a.slug')
    .execute();
  return rows.map((r) => {
    const m = r.manifest as { title: string; category: string; owner?: { department?: string } };
    return {
      namespace: r.namespace,
      slug: r.slug,
      title: m.title,
      category: m.category,
      department: m.owner?.department ?? null,
      test: r.test_version ? { version: r.test_version, build: r.test_build! } : null,
      production: r.prod_version ? { version: r.prod_version, build: r.prod_build! } : null,
      latest: { version: r.latest_version, build: r.latest_build },
      updatedAt: r.updated_at.toISOString(),
    };
  });
}

/** The registry: one row per app, with its newest build number. */
export async function listRegistry(db: DbOrTrx, principal: Principal) {
  const apps = await listApps(db, principal);
  return apps.map(({ latest, ...row }) => ({ ...row, latestBuild: latest.build }));
}
