import type { AutomationCondition, AutomationEffect, AutomationRunView, AutomationView, EffectOutcome } from '../../schemas/automate.ts';
import { automationWorkflowId } from '../../schemas/workflow-keys.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

/** The company a namespace names, for its data developers (automation.manage); organization_not_found when none. */
export async function companyForAutomations(db: DbOrTrx, principal: Principal, namespace: string) {
  authorize(principal, 'automation.manage', { namespace });
  const company = await db.selectFrom('companies').select(['id', 'cell_id']).where('cell_id', '=', namespace).executeTakeFirst();
  if (!company) throw new DomainError('organization_not_found', `No company ${namespace}.`, { details: { organization: namespace } });
  return company;
}

export const automationNotFound = (id: string) =>
  new DomainError('automation_not_found', `No automation ${id}.`, { details: { automationId: id } });

export const automationRows = (db: DbOrTrx) =>
  db
    .selectFrom('automations as au')
    .innerJoin('apps as ap', 'ap.id', 'au.app_id')
    .innerJoin('companies as c', 'c.id', 'au.company_id')
    .leftJoin('accounts as ac', 'ac.id', 'au.owner_id')
    .select([
      'au.id',
      'au.company_id',
      'au.app_id',
      'au.name',
      'au.enabled',
      'au.condition',
      'au.effects',
      'au.retries',
      'au.cooldown_seconds',
      'au.daily_cap',
      'au.threshold_met',
      'au.last_fired_at',
      'au.owner_id',
      'au.created_at',
      'au.updated_at',
      'ap.slug as app_slug',
      'c.cell_id',
      'c.name as company_name',
      'ac.username as owner_username',
    ]);

export type AutomationRow = Awaited<ReturnType<ReturnType<typeof automationRows>['executeTakeFirstOrThrow']>>;
export type StoredAutomation = AutomationRow & { condition: AutomationCondition; effects: AutomationEffect[] };

export const automationView = (r: AutomationRow): AutomationView => ({
  id: r.id,
  name: r.name,
  app: r.app_slug,
  enabled: r.enabled,
  condition: r.condition as AutomationCondition,
  effects: r.effects as AutomationEffect[],
  retries: r.retries,
  cooldownSeconds: r.cooldown_seconds,
  dailyCap: r.daily_cap,
  owner: r.owner_username,
  workflowId: automationWorkflowId(r.id),
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

/** One automation of the company (locked for update when asked). */
export async function findAutomation(db: DbOrTrx, companyId: string, id: string, lock = false): Promise<StoredAutomation> {
  let q = automationRows(db).where('au.company_id', '=', companyId).where('au.id', '=', id);
  if (lock) q = q.forUpdate('au');
  const row = await q.executeTakeFirst();
  if (!row) throw automationNotFound(id);
  return row as StoredAutomation;
}

/** An automation by id alone (the worker's side), undefined once deleted. */
export async function automationById(db: DbOrTrx, id: string, lock = false): Promise<StoredAutomation | undefined> {
  let q = automationRows(db).where('au.id', '=', id);
  if (lock) q = q.forUpdate('au');
  return (await q.executeTakeFirst()) as StoredAutomation | undefined;
}

/** A unique-name violation as automation_name_exists; anything else rethrown. */
export function nameTaken(err: unknown, name: string): never {
  if ((err as { code?: string }).code === '23505') {
    throw new DomainError('automation_name_exists', `The company already has an automation named ${name}.`, { details: { name } });
  }
  throw err;
}

export const runRows = (db: DbOrTrx) =>
  db
    .selectFrom('automation_runs')
    .select([
      'id',
      'automation_id',
      'trigger',
      'status',
      'skip_reason',
      'effects',
      'error',
      'workflow_id',
      'temporal_run_id',
      'started_at',
      'finished_at',
    ]);

type RunRow = Awaited<ReturnType<ReturnType<typeof runRows>['executeTakeFirstOrThrow']>>;

export const runView = (r: RunRow): AutomationRunView => ({
  id: r.id,
  trigger: r.trigger as AutomationRunView['trigger'],
  status: r.status,
  skipReason: r.skip_reason as AutomationRunView['skipReason'],
  effects: r.effects as EffectOutcome[],
  error: r.error,
  workflowId: r.workflow_id,
  temporalRunId: r.temporal_run_id,
  startedAt: r.started_at.toISOString(),
  finishedAt: r.finished_at?.toISOString() ?? null,
});
