import { sql } from 'kysely';
import type { DbOrTrx } from '../db/index.ts';

export interface AppLabels {
  /** The company's cell id; undefined for a public app. */
  cellId: string | undefined;
  companyName: string | undefined;
  appSlug: string;
  /** The run's version (`runId` given), else production's; undefined when there is none. */
  version: string | undefined;
}

/**
 * What Temporal shows of an app's runs, triggers and schedule (their memo and search attributes):
 * its company, slug and a version. Undefined for an app that no longer exists.
 */
export async function appLabels(db: DbOrTrx, appId: string, runId?: string): Promise<AppLabels | undefined> {
  const row = await db
    .selectFrom('apps as a')
    .leftJoin('companies as c', 'c.id', 'a.company_id')
    .leftJoin('workflow_runs as r', (join) => join.onRef('r.app_id', '=', 'a.id').on('r.id', '=', runId ?? ''))
    .leftJoin('app_versions as v', (join) => join.on('v.id', '=', sql<string>`coalesce(r.version_id, a.production_version_id)`))
    .select(['a.slug', 'c.cell_id', 'c.name', 'v.version'])
    .where('a.id', '=', appId)
    .executeTakeFirst();
  if (!row) return undefined;
  return { cellId: row.cell_id ?? undefined, companyName: row.name ?? undefined, appSlug: row.slug, version: row.version ?? undefined };
}
