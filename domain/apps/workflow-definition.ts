import { sql } from 'kysely';
import { durationSeconds, type Workflow } from '../../schemas/manifest/index.ts';
import { workflowSchema } from '../../schemas/manifest/workflow.ts';
import { BoundedCache } from '../cache/index.ts';
import type { Channel, DbOrTrx } from '../db/index.ts';

// An app's workflow as a version's manifest states it, and the triggers it asks for. Only the
// production channel's workflow has triggers: the test channel never fires them.

export interface AppWorkflow {
  appId: string;
  companyId: string | null;
  namespace: string;
  slug: string;
  versionId: string;
  version: string;
  channel: Channel;
  workflow: Workflow;
}

/** Parsed workflows by version id: a version never changes, and every run's first activity asks. */
const parsedWorkflows = new BoundedCache<string, Workflow | null>(1000);

/** The workflow of the version a channel points at; undefined when there is none. */
export async function channelWorkflow(db: DbOrTrx, appId: string, channel: Channel): Promise<AppWorkflow | undefined> {
  const row = await db
    .selectFrom('apps as a')
    .innerJoin('app_versions as v', 'v.id', channel === 'production' ? 'a.production_version_id' : 'a.test_version_id')
    .select(['a.id', 'a.company_id', 'a.namespace', 'a.slug', 'v.id as version_id', 'v.version'])
    .where('a.id', '=', appId)
    .executeTakeFirst();
  if (!row) return undefined;
  let workflow = parsedWorkflows.get(row.version_id);
  if (workflow === undefined) {
    const stored = await db
      .selectFrom('app_versions')
      .select(sql<unknown>`manifest -> 'workflow'`.as('workflow'))
      .where('id', '=', row.version_id)
      .executeTakeFirstOrThrow();
    // Stored manifests were validated at upload; parsing fills defaults added since.
    workflow = stored.workflow === null ? null : workflowSchema.parse(stored.workflow);
    parsedWorkflows.set(row.version_id, workflow);
  }
  if (workflow === null) return undefined;
  return {
    appId: row.id,
    companyId: row.company_id,
    namespace: row.namespace,
    slug: row.slug,
    versionId: row.version_id,
    version: row.version,
    channel,
    workflow,
  };
}

/** Apps whose production manifest has a workflow (worker start reconciles their triggers). */
export async function appsWithProductionWorkflows(db: DbOrTrx): Promise<string[]> {
  const rows = await db
    .selectFrom('apps as a')
    .innerJoin('app_versions as v', 'v.id', 'a.production_version_id')
    .select('a.id')
    .where(sql<boolean>`v.manifest ? 'workflow'`)
    .orderBy('a.id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The company's apps whose production workflow watches any of the changed object types (dotted
 * semantic names): the change triggers to signal.
 */
export async function appsWatching(db: DbOrTrx, companyId: string, objectTypes: readonly string[]): Promise<string[]> {
  if (objectTypes.length === 0) return [];
  const rows = await db
    .selectFrom('apps as a')
    .innerJoin('app_versions as v', 'v.id', 'a.production_version_id')
    .select('a.id')
    .where('a.company_id', '=', companyId)
    .where(sql<boolean>`(v.manifest #> '{workflow,trigger,change,types}') ?| ${[...objectTypes]}::text[]`)
    .orderBy('a.id')
    .execute();
  return rows.map((r) => r.id);
}

export interface TriggerPlan {
  schedule: { everySeconds: number; at?: { hour: number; minute: number } } | undefined;
  change: { types: string[]; cooldownMs: number } | undefined;
}

export function triggersOf(workflow: Workflow | undefined): TriggerPlan {
  const trigger = workflow?.trigger;
  const schedule = trigger?.schedule;
  const at = schedule?.at?.split(':').map(Number) as [number, number] | undefined;
  return {
    schedule: schedule && {
      everySeconds: durationSeconds(schedule.every) ?? 0,
      ...(at ? { at: { hour: at[0], minute: at[1] } } : {}),
    },
    change: trigger?.change && { types: trigger.change.types, cooldownMs: (durationSeconds(trigger.change.cooldown) ?? 0) * 1000 },
  };
}

/**
 * When the schedule fires next after `now`, as Temporal computes it: intervals are aligned to
 * the Unix epoch (so `every: 1h` fires on the hour), a daily `at` at that UTC time.
 */
export function nextScheduledRun(schedule: TriggerPlan['schedule'], now: Date): Date | undefined {
  if (!schedule) return undefined;
  const everyMs = schedule.everySeconds * 1000;
  const offsetMs = schedule.at ? (schedule.at.hour * 60 + schedule.at.minute) * 60_000 : 0;
  const t = now.getTime();
  return new Date(Math.floor((t - offsetMs) / everyMs) * everyMs + offsetMs + everyMs);
}
