import { sql } from 'kysely';
import { manifestSchema } from '../../../schemas/manifest/index.ts';
import type { DbOrTrx } from '../../db/index.ts';
import type { ResourceKind, ResourceRecord, Tier } from '../kind.ts';
import { applicationsRid } from './applications.ts';

const PREFIX = 'ri.workshop.svc.app.';

export const appRid = (namespace: string, slug: string) => `${PREFIX}${namespace}.${slug}`;

/** Apps with the manifest of the version people see: production, else test, else the latest upload. */
const apps = (db: DbOrTrx) =>
  db
    .selectFrom('apps as a')
    .leftJoin('companies as c', 'c.id', 'a.company_id')
    .select([
      'a.namespace',
      'a.slug',
      'a.company_id',
      'a.created_by',
      'c.cell_id',
      sql<unknown>`(SELECT v.manifest FROM app_versions v WHERE v.id = coalesce(a.production_version_id, a.test_version_id)
        OR (a.production_version_id IS NULL AND a.test_version_id IS NULL AND v.app_id = a.id) ORDER BY v.build DESC LIMIT 1)`.as(
        'manifest',
      ),
    ]);

type Row = { namespace: string; slug: string; company_id: string | null; created_by: string; cell_id: string | null; manifest: unknown };

/**
 * The manifest's `auth.access` is the app's own setting: an app open to its company cannot be
 * narrowed below group; official apps (open to every company) not below public.
 */
function floorOf(row: Row): Tier {
  if (row.company_id === null) return 'public';
  const parsed = manifestSchema.safeParse(row.manifest);
  return parsed.success && parsed.data.auth.access === 'restricted' ? 'private' : 'group';
}

const record = (row: Row): ResourceRecord => {
  const title = manifestSchema.safeParse(row.manifest);
  return {
    rid: appRid(row.namespace, row.slug),
    kind: 'app',
    title: title.success ? title.data.title : row.slug,
    companyId: row.company_id,
    cellId: row.cell_id,
    createdBy: row.created_by,
    floor: floorOf(row),
    parent: row.cell_id ? applicationsRid(row.cell_id) : null,
  };
};

/** An app `ri.workshop.svc.app.<namespace>.<slug>`; it inherits from its company's applications resource (rule 4). */
export const appKind: ResourceKind = {
  name: 'app',
  prefix: PREFIX,
  anonymousRead: true,
  async find(db, id) {
    const [namespace, slug, ...rest] = id.split('.');
    if (!namespace || !slug || rest.length > 0) return undefined;
    const row = await apps(db).where('a.namespace', '=', namespace).where('a.slug', '=', slug).executeTakeFirst();
    return row && record(row);
  },
  async listOf(db, companyIds) {
    if (companyIds.length === 0) return [];
    return (await apps(db).where('a.company_id', 'in', companyIds).orderBy('a.slug').limit(500).execute()).map(record);
  },
};
