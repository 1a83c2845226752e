import { z } from 'zod';
import type { PublicAddresses } from '../config.ts';
import type { Selectable } from 'kysely';
import type { DbOrTrx, ReleaseRecordsTable } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { pageAddresses } from './page-addresses.ts';
import { type ReleaseFact, versionStatus, wasTested } from './version-status.ts';

export const UpdateStatusSchema = z.enum(['untested', 'testing', 'tested', 'live', 'superseded', 'rolled_back']);

export const VersionView = z
  .object({
    version: z.string(),
    build: z.number().int(),
    buildLabel: z.string().meta({ description: 'The build number as written in the CLI, e.g. `#3`.' }),
    status: UpdateStatusSchema,
    tested: z.boolean(),
    digest: z.string(),
    size: z.number().int(),
    fileCount: z.number().int(),
    notes: z.string().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'AppVersion' });

const Addresses = z.object({ address: z.string(), about: z.string(), aboutMarkdown: z.string(), skills: z.array(z.string()) });

export const ReleaseRecordView = z
  .object({
    channel: z.enum(['test', 'production']),
    action: z.enum(['enter_test', 'publish', 'rollback']),
    from: z.string().nullable(),
    to: z.string(),
    by: z.string(),
    at: z.iso.datetime(),
    notes: z.string().nullable(),
  })
  .meta({ id: 'ReleaseRecord' });

export const AppView = z
  .object({
    namespace: z.string(),
    slug: z.string(),
    title: z.string(),
    channels: z.object({ test: z.string().nullable(), production: z.string().nullable() }),
    versions: z.array(VersionView).meta({ description: 'Newest build first.' }),
    releases: z.array(ReleaseRecordView).meta({ description: 'Oldest first.' }),
    pages: z.object({ test: Addresses, production: Addresses }),
  })
  .meta({ id: 'App' });

export type AppViewData = z.input<typeof AppView>;

export async function findApp(db: DbOrTrx, namespace: string, slug: string, opts: { lock?: boolean } = {}) {
  let q = db.selectFrom('apps').selectAll().where('namespace', '=', namespace).where('slug', '=', slug);
  if (opts.lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

type ReleaseRow = Pick<Selectable<ReleaseRecordsTable>, 'channel' | 'action' | 'from_version_id' | 'to_version_id' | 'seq'>;

const toFact = (r: ReleaseRow): ReleaseFact => ({
  channel: r.channel,
  action: r.action,
  fromVersionId: r.from_version_id,
  toVersionId: r.to_version_id,
  seq: r.seq,
});

export async function releaseFacts(db: DbOrTrx, appId: string): Promise<ReleaseFact[]> {
  const rows = await db
    .selectFrom('release_records')
    .select(['channel', 'action', 'from_version_id', 'to_version_id', 'seq'])
    .where('app_id', '=', appId)
    .orderBy('seq')
    .execute();
  return rows.map(toFact);
}

/** Everything a developer sees of one app: pointers, versions with derived statuses, releases, addresses. */
export async function appView(db: DbOrTrx, addresses: PublicAddresses, namespace: string, slug: string): Promise<AppViewData> {
  const app = await findApp(db, namespace, slug);
  if (!app) throw new ApiError('app_not_found', 404, { namespace, slug });
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
  const facts = records.map(toFact);
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
