import { findHostedApp, type HostedApp, type HostedVersion, loadVersion } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

/** An app of the namespace by slug (404 app_not_found). */
export async function namedApp(db: DbOrTrx, namespace: string, slug: string): Promise<HostedApp> {
  const app = await findHostedApp(db, namespace, slug);
  if (!app) throw new DomainError('app_not_found', `No app ${namespace}/${slug}.`);
  return app;
}

/** The app a developer of the namespace works on (company.manage: a developer key or web session). */
export async function developedApp(db: DbOrTrx, principal: Principal, namespace: string, slug: string): Promise<HostedApp> {
  authorize(principal, 'company.manage', { namespace });
  return namedApp(db, namespace, slug);
}

/**
 * The version whose manifest says what may change: production's, else test's, else the newest
 * uploaded (an app still in development).
 */
export async function governingVersion(db: DbOrTrx, app: Pick<HostedApp, 'id' | 'namespace' | 'slug'>): Promise<HostedVersion> {
  const row = await db
    .selectFrom('apps as a')
    .select((eb) => [
      'a.production_version_id',
      'a.test_version_id',
      eb.selectFrom('app_versions as v').select('v.id').whereRef('v.app_id', '=', 'a.id').orderBy('v.build', 'desc').limit(1).as('newest'),
    ])
    .where('a.id', '=', app.id)
    .executeTakeFirstOrThrow();
  const id = row.production_version_id ?? row.test_version_id ?? row.newest;
  if (!id) throw new DomainError('app_not_found', `${app.namespace}/${app.slug} has no version yet.`);
  return loadVersion(db, id);
}
