import type { AppView } from '../../schemas/apps.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { PublicAddresses } from '../deps.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { pageAddresses } from './page-addresses.ts';
import { getApp, toReleaseFact } from './repository.ts';
import { versionStatus, wasTested } from './version-status.ts';

/** Everything a developer sees of one app: pointers, versions with derived statuses, releases, addresses. */
export async function describeApp(
  db: DbOrTrx,
  principal: Principal,
  addresses: PublicAddresses,
  namespace: string,
  slug: string,
): Promise<AppView> {
  authorize(principal, 'company.read', { namespace: namespace });
  return loadAppView(db, addresses, namespace, slug);
}

/** The app as `describeApp` shows it, for callers that checked access their own way (the app log). */
export async function loadAppView(db: DbOrTrx, addresses: PublicAddresses, namespace: string, slug: string): Promise<AppView> {
  const app = await getApp(db, namespace, slug);
  const versions = await db
    .selectFrom('app_versions')
    .select(['id', 'version', 'build', 'digest', 'size', 'file_count', 'notes', 'created_at'])
    .where('app_id', '=', app.id)
    .orderBy('build', 'desc')
    .execute();
  const records = await db
    .selectFrom('release_records as r')
    .innerJoin('accounts as a', 'a.id', 'r.actor_account_id')
    .select(['r.channel', 'r.action', 'r.from_version_id', 'r.to_version_id', 'r.seq', 'r.notes', 'r.created_at', 'a.username'])
    .where('r.app_id', '=', app.id)
    .orderBy('r.seq')
    .execute();
  const facts = records.map(toReleaseFact);
  const pointers = { testVersionId: app.test_version_id, productionVersionId: app.production_version_id };
  const numberOf = new Map(versions.map((v) => [v.id, v.version]));
  // The page shows the production version's title, else the newest upload's.
  const shownId = app.production_version_id ?? versions[0]?.id;
  const shown = shownId
    ? await db.selectFrom('app_versions').select(['manifest', 'skills']).where('id', '=', shownId).executeTakeFirstOrThrow()
    : undefined;
  const manifest = (shown?.manifest ?? {}) as { title?: string };
  const skills = ((shown?.skills ?? []) as { name: string }[]).map((s) => s.name);
  return {
    namespace,
    slug,
    title: manifest.title ?? slug,
    channels: {
      test: app.test_version_id ? numberOf.get(app.test_version_id)! : null,
      production: app.production_version_id ? numberOf.get(app.production_version_id)! : null,
    },
    versions: versions.map((v) => ({
      version: v.version,
      build: v.build,
      buildLabel: `#${v.build}`,
      status: versionStatus(v.id, pointers, facts),
      tested: wasTested(v.id, facts),
      digest: v.digest,
      size: v.size,
      fileCount: v.file_count,
      notes: v.notes,
      createdAt: v.created_at.toISOString(),
    })),
    releases: records.map((r) => ({
      channel: r.channel,
      action: r.action,
      from: r.from_version_id ? numberOf.get(r.from_version_id)! : null,
      to: numberOf.get(r.to_version_id)!,
      by: r.username,
      at: r.created_at.toISOString(),
      notes: r.notes,
    })),
    pages: pageAddresses(addresses, namespace, slug, skills),
  };
}
