import { sql } from 'kysely';
import { findCompany } from '../companies/index.ts';
import type {
  DbOrTrx,
  InstanceRecord,
  PendingMove,
  ProvisioningPart,
  ProvisioningRunStatus,
  ProvisioningStepRecord,
  ReplacedInstance,
} from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { LiveRunObserver } from './live-runs.ts';

/** The stored initialization record of a company (by company id); undefined before its first initialize. */
export async function findProvisioning(db: DbOrTrx, companyId: string) {
  return db.selectFrom('company_provisioning').selectAll().where('company_id', '=', companyId).executeTakeFirst();
}

/** What a run's steps need: the record with the company's cell id; not_found when never initialized. */
export async function loadProvisioning(db: DbOrTrx, cellId: string) {
  await findCompany(db, cellId);
  const row = await db
    .selectFrom('company_provisioning as p')
    .innerJoin('companies as c', 'c.id', 'p.company_id')
    .selectAll('p')
    .select('c.cell_id')
    .where('c.cell_id', '=', cellId)
    .executeTakeFirst();
  if (!row) throw new DomainError('conflict', `Company ${cellId} was never initialized: call initialize first.`, { details: { cellId } });
  return row;
}

export type ProvisioningRecord = Awaited<ReturnType<typeof loadProvisioning>>;

export interface ProvisioningSettings {
  companyKey: string;
  nameEn: string;
  nameZh: string;
  rootPath: string;
  cloud: { profile: string; accountId: string; region: string; instanceName: string };
}

export async function saveProvisioning(db: DbOrTrx, companyId: string, s: ProvisioningSettings): Promise<void> {
  const values = {
    company_key: s.companyKey,
    name_en: s.nameEn,
    name_zh: s.nameZh,
    root_path: s.rootPath,
    cloud: JSON.stringify(s.cloud),
  };
  await db
    .insertInto('company_provisioning')
    .values({ company_id: companyId, ...values })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ ...values, updated_at: sql`now()` }))
    .execute();
}

/** Locks the company's row until the transaction ends: calls that change its provisioning go one at a time. */
export async function lockCompany(db: DbOrTrx, cellId: string) {
  await findCompany(db, cellId);
  return db.selectFrom('companies').select(['id', 'name']).where('cell_id', '=', cellId).forUpdate().executeTakeFirstOrThrow();
}

/** The instance is being replaced: its id goes on record and the client token moves to the next generation. */
export async function recordReplacement(db: DbOrTrx, companyId: string, replaced: ReplacedInstance): Promise<void> {
  await db
    .updateTable('company_provisioning')
    .set({
      instance_generation: replaced.generation,
      replaced_instances: sql`replaced_instances || jsonb_build_array(${JSON.stringify(replaced)}::jsonb)`,
    })
    .where('company_id', '=', companyId)
    .execute();
}

/** Records (or, with null, forgets) the move the next run has to do on disk. */
export async function setPendingMove(db: DbOrTrx, companyId: string, move: PendingMove | null): Promise<void> {
  await db
    .updateTable('company_provisioning')
    .set({ pending_move: move && JSON.stringify(move) })
    .where('company_id', '=', companyId)
    .execute();
}

/** Done: clears the move, unless a newer one replaced it meanwhile. */
export async function clearPendingMove(db: DbOrTrx, cellId: string, move: PendingMove): Promise<void> {
  await sql`UPDATE company_provisioning p SET pending_move = NULL FROM companies c
    WHERE c.id = p.company_id AND c.cell_id = ${cellId} AND p.pending_move = ${JSON.stringify(move)}::jsonb`.execute(db);
}

/**
 * The run going on for the company, or the request still waiting for one: a run is never
 * re-parameterised under it. A row still `running` whose workflow Temporal reports ended
 * (a crashed run) does not count.
 */
export async function activeRun(
  db: DbOrTrx,
  companyId: string,
  live: LiveRunObserver | undefined,
): Promise<{ runId: string | null; workflowId: string } | undefined> {
  // Unknown to Temporal or Temporal out of reach: counted as going (the safe side).
  const stillRunning = async (workflowId: string, runId: string) => {
    const seen = await live?.observe(workflowId, runId);
    return !seen || seen.status === 'RUNNING';
  };
  const runs = await db
    .selectFrom('provisioning_runs')
    .select(['run_id', 'workflow_id'])
    .where('company_id', '=', companyId)
    .where('status', '=', 'running')
    .execute();
  for (const r of runs) if (await stillRunning(r.workflow_id, r.run_id)) return { runId: r.run_id, workflowId: r.workflow_id };
  const queued = await db
    .selectFrom('provisioning_requests')
    .select('workflow_id')
    .where('company_id', '=', companyId)
    .where('run_id', 'is', null)
    .executeTakeFirst();
  return queued && { runId: null, workflowId: queued.workflow_id };
}

export async function insertRequest(
  db: DbOrTrx,
  r: { id: string; companyId: string; part: ProvisioningPart; workflowId: string; requestedBy: string },
): Promise<void> {
  await db
    .insertInto('provisioning_requests')
    .values({ id: r.id, company_id: r.companyId, part: r.part, workflow_id: r.workflowId, requested_by: r.requestedBy })
    .execute();
}

/** The run a request started or joined; set once. */
export async function setRequestRun(db: DbOrTrx, requestId: string, runId: string): Promise<void> {
  await db.updateTable('provisioning_requests').set({ run_id: runId }).where('id', '=', requestId).where('run_id', 'is', null).execute();
}

export async function requestRunId(db: DbOrTrx, requestId: string): Promise<string | null | undefined> {
  const row = await db.selectFrom('provisioning_requests').select('run_id').where('id', '=', requestId).executeTakeFirst();
  return row?.run_id;
}

export async function insertRun(db: DbOrTrx, r: { runId: string; workflowId: string; companyId: string; part: ProvisioningPart }) {
  await db
    .insertInto('provisioning_runs')
    .values({ run_id: r.runId, workflow_id: r.workflowId, company_id: r.companyId, part: r.part, status: 'running' })
    .onConflict((oc) => oc.column('run_id').doNothing())
    .execute();
}

/** Replaces the run's record of one step (one statement, so concurrent writers never lose a step). */
export async function saveStep(db: DbOrTrx, runId: string, step: ProvisioningStepRecord): Promise<void> {
  await sql`UPDATE provisioning_runs SET steps = (
      SELECT coalesce(jsonb_agg(s ORDER BY n), '[]'::jsonb) FROM jsonb_array_elements(steps) WITH ORDINALITY AS e(s, n)
      WHERE s->>'name' <> ${step.name}) || jsonb_build_array(${JSON.stringify(step)}::jsonb)
    WHERE run_id = ${runId}`.execute(db);
}

export async function stepOf(db: DbOrTrx, runId: string, name: string): Promise<ProvisioningStepRecord | undefined> {
  const row = await db.selectFrom('provisioning_runs').select('steps').where('run_id', '=', runId).executeTakeFirst();
  return row?.steps.find((s) => s.name === name);
}

export async function closeRun(db: DbOrTrx, runId: string, status: ProvisioningRunStatus, error: string | null): Promise<void> {
  await db
    .updateTable('provisioning_runs')
    .set({ status, error, finished_at: sql`clock_timestamp()` })
    .where('run_id', '=', runId)
    .execute();
}

export async function saveInstance(db: DbOrTrx, companyId: string, instance: InstanceRecord): Promise<void> {
  await db
    .updateTable('company_provisioning')
    .set({ instance: JSON.stringify(instance), instance_synced_at: sql`now()` })
    .where('company_id', '=', companyId)
    .execute();
}

export async function saveFolder(db: DbOrTrx, companyId: string, name: string, path: string): Promise<void> {
  await db
    .insertInto('company_folders')
    .values({ company_id: companyId, name, path })
    .onConflict((oc) => oc.columns(['company_id', 'name']).doUpdateSet({ path, updated_at: sql`now()` }))
    .execute();
}

export async function findProfile(db: DbOrTrx, companyId: string, role: string) {
  return db.selectFrom('agent_profiles').selectAll().where('company_id', '=', companyId).where('role', '=', role).executeTakeFirst();
}

export interface ProfileRow {
  id: string;
  rid: string;
  companyId: string;
  role: string;
  name: string;
  folderPath: string;
  profilePath: string;
  descriptionPath: string;
  descriptionSha256: string;
}

export async function saveProfile(db: DbOrTrx, p: ProfileRow): Promise<void> {
  const values = {
    name: p.name,
    folder_path: p.folderPath,
    profile_path: p.profilePath,
    description_path: p.descriptionPath,
    description_sha256: p.descriptionSha256,
  };
  await db
    .insertInto('agent_profiles')
    .values({ id: p.id, rid: p.rid, company_id: p.companyId, role: p.role, ...values })
    .onConflict((oc) => oc.columns(['company_id', 'role']).doUpdateSet({ ...values, updated_at: sql`now()` }))
    .execute();
}
