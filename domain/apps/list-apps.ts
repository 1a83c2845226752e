import type { AppSummary, ListedApp } from '../../schemas/apps.ts';
import { type Manifest, manifestSchema } from '../../schemas/manifest/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { PublicAddresses } from '../deps.ts';
import { keyNamespaces } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { pageAddresses } from './page-addresses.ts';

/**
 * Apps of these namespaces (one app when `slug` is given), by namespace and slug, with the
 * manifest and the SDKs found in use of the version they show: production, else the newest.
 */
export async function appRows(db: DbOrTrx, namespaces: readonly string[], slug?: string) {
  if (namespaces.length === 0) return [];
  let query = db
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
      'a.id',
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
      (eb) => eb.fn.coalesce('p.sdk_used', 'latest.sdk_used').as('sdk_used'),
    ])
    .where('a.namespace', 'in', namespaces);
  if (slug !== undefined) query = query.where('a.slug', '=', slug);
  const rows = await query.orderBy('a.namespace').orderBy('a.slug').execute();
  return rows.map((r) => ({
    id: r.id,
    namespace: r.namespace,
    slug: r.slug,
    // Parsed again so that versions stored before a field existed read with its default.
    manifest: manifestSchema.parse(r.manifest) as Manifest,
    sdkUsed: r.sdk_used as string[],
    shownVersion: r.prod_version ?? r.latest_version,
    summary: {
      namespace: r.namespace,
      slug: r.slug,
      test: r.test_version ? { version: r.test_version, build: r.test_build! } : null,
      production: r.prod_version ? { version: r.prod_version, build: r.prod_build! } : null,
      latest: { version: r.latest_version, build: r.latest_build },
      updatedAt: r.updated_at.toISOString(),
    },
  }));
}

/** An app row as the list and the registry show it. */
export const appSummaryOf = ({ manifest, summary }: Awaited<ReturnType<typeof appRows>>[number]): AppSummary => ({
  ...summary,
  title: manifest.title,
  category: manifest.category,
  department: manifest.owner?.department ?? null,
});

/** Apps the caller may read (its company's namespace, plus public for platform staff), by namespace and slug, with their addresses. */
export async function listApps(db: DbOrTrx, principal: Principal, addresses: PublicAddresses): Promise<ListedApp[]> {
  return (await appRows(db, keyNamespaces(principal))).map((row) => {
    const pages = pageAddresses(addresses, row.namespace, row.slug, []);
    return { ...appSummaryOf(row), addresses: { test: pages.test.address, production: pages.production.address } };
  });
}
