import { sql } from 'kysely';
import type { DbOrTrx } from '../db/index.ts';
import { automationById } from './repository.ts';

/** The enabled automations of the company whose data condition watches one of these object types (the relay signals them). */
export async function automationsWatching(db: DbOrTrx, companyId: string, objectTypes: readonly string[]): Promise<string[]> {
  if (objectTypes.length === 0) return [];
  const rows = await db
    .selectFrom('automations')
    .select('id')
    .where('company_id', '=', companyId)
    .where('enabled', '=', true)
    .where(sql<string>`condition->>'objectType'`, 'in', [...objectTypes])
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Every enabled automation, for the periodic agreement with Temporal (a workflow or schedule lost there is made again). */
export async function enabledAutomationIds(db: DbOrTrx): Promise<string[]> {
  const rows = await db.selectFrom('automations').select('id').where('enabled', '=', true).orderBy('id').execute();
  return rows.map((r) => r.id);
}

/** What Temporal should hold for an automation: its workflow while enabled, a schedule condition's cron, and the labels naming both. */
export async function automationTemporal(db: DbOrTrx, automationId: string) {
  const automation = await automationById(db, automationId);
  if (!automation) return null;
  return {
    enabled: automation.enabled,
    cron: automation.condition.type === 'schedule' ? automation.condition.cron : null,
    labels: { cellId: automation.cell_id, companyName: automation.company_name, appSlug: automation.app_slug, runId: automation.id },
  };
}
