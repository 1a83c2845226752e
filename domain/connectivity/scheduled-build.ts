import type { Db } from '../db/index.ts';
import { insertBuild } from './builds.ts';

/** A scheduled run's build of one sync, recorded under the run's own workflow id (null: the sync is gone). */
export async function recordScheduledBuild(db: Db, syncId: string, workflowId: string): Promise<string | null> {
  const existing = await db.selectFrom('data_builds').select('id').where('workflow_id', '=', workflowId).executeTakeFirst();
  if (existing) return existing.id;
  const sync = await db.selectFrom('data_syncs').select(['id', 'name', 'company_id']).where('id', '=', syncId).executeTakeFirst();
  if (!sync) return null;
  return insertBuild(db, {
    companyId: sync.company_id,
    trigger: 'schedule',
    requestedBy: null,
    workflowId,
    jobs: [{ syncId: sync.id, syncName: sync.name, dependsOn: [] }],
  });
}

/** A sync's schedule as the outbox relay reconciles it: its cron, or null when the sync is gone or unscheduled. */
export async function syncSchedule(db: Db, syncId: string) {
  const sync = await db
    .selectFrom('data_syncs as s')
    .innerJoin('companies as c', 'c.id', 's.company_id')
    .select(['s.schedule', 's.name', 'c.cell_id', 'c.name as company_name'])
    .where('s.id', '=', syncId)
    .executeTakeFirst();
  return sync?.schedule ? { cron: sync.schedule, name: sync.name, cellId: sync.cell_id, companyName: sync.company_name } : null;
}
