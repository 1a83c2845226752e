import { sql } from 'kysely';
import type { BuildView } from '../../schemas/connectivity.ts';
import { dataBuildWorkflowId } from '../../schemas/workflow-keys.ts';
import type { BuildJobStatus, BuildStatus, DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../security/index.ts';

// Build records: what the API shows of a build and its jobs, and what the workflow's activities
// move along (each status change is one row update, so the API always shows the state committed).

export const buildNotFound = (id: string) => new DomainError('build_not_found', `No build ${id}.`, { details: { buildId: id } });

const ms = (from: Date | null, to: Date | null) => (from && to ? to.getTime() - from.getTime() : null);

export async function buildView(db: DbOrTrx, companyId: string, id: string): Promise<BuildView> {
  const build = await db.selectFrom('data_builds').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  if (!build) throw buildNotFound(id);
  const jobs = await db.selectFrom('data_build_jobs').selectAll().where('build_id', '=', id).orderBy('position').execute();
  return {
    id: build.id,
    status: build.status,
    trigger: build.trigger,
    workflowId: build.workflow_id,
    createdAt: build.created_at.toISOString(),
    startedAt: build.started_at?.toISOString() ?? null,
    finishedAt: build.finished_at?.toISOString() ?? null,
    durationMs: ms(build.started_at, build.finished_at),
    jobs: jobs.map((j) => ({
      position: j.position,
      syncId: j.sync_id,
      syncName: j.sync_name,
      dependsOn: j.depends_on,
      status: j.status,
      rowsRead: Number(j.rows_read),
      rowsWritten: Number(j.rows_written),
      pages: j.pages,
      startedAt: j.started_at?.toISOString() ?? null,
      finishedAt: j.finished_at?.toISOString() ?? null,
      durationMs: ms(j.started_at, j.finished_at),
      error: (j.error as { code: string; message: string } | null) ?? null,
    })),
  };
}

/**
 * Records a build of these syncs (already in dependency order, `dependsOn` by position) with its
 * workflow id; the caller starts the run (an outbox intent, or the scheduled run itself).
 */
export async function insertBuild(
  db: DbOrTrx,
  input: {
    companyId: string;
    trigger: 'api' | 'schedule';
    requestedBy: string | null;
    jobs: readonly { syncId: string; syncName: string; dependsOn: number[] }[];
    workflowId?: string;
  },
): Promise<string> {
  const id = newId('bld');
  await db
    .insertInto('data_builds')
    .values({
      id,
      company_id: input.companyId,
      workflow_id: input.workflowId ?? dataBuildWorkflowId(id),
      status: 'QUEUED',
      trigger: input.trigger,
      requested_by: input.requestedBy,
    })
    .execute();
  await db
    .insertInto('data_build_jobs')
    .values(
      input.jobs.map((j, position) => ({
        build_id: id,
        position,
        sync_id: j.syncId,
        sync_name: j.syncName,
        depends_on: j.dependsOn,
        status: 'WAITING' as const,
      })),
    )
    .execute();
  return id;
}

/** Moves the build from QUEUED to RUNNING (a retried activity finds it RUNNING: no change); its jobs' positions and dependencies. */
export async function startBuild(db: DbOrTrx, buildId: string) {
  await db
    .updateTable('data_builds')
    .set({ status: 'RUNNING', started_at: sql`coalesce(started_at, now())` })
    .where('id', '=', buildId)
    .where('status', '=', 'QUEUED')
    .execute();
  const build = await db.selectFrom('data_builds').select('status').where('id', '=', buildId).executeTakeFirst();
  const jobs = await db
    .selectFrom('data_build_jobs')
    .select(['position', 'depends_on', 'status'])
    .where('build_id', '=', buildId)
    .orderBy('position')
    .execute();
  return {
    status: build?.status ?? 'CANCELLED',
    jobs: jobs.map((j) => ({ position: j.position, dependsOn: j.depends_on, status: j.status })),
  };
}

/** A job's end (never changes one that ended already: a retry is harmless). */
export async function endJob(
  db: DbOrTrx,
  buildId: string,
  position: number,
  status: Exclude<BuildJobStatus, 'WAITING' | 'RUNNING'>,
  error: { code: string; message: string } | null,
) {
  await db
    .updateTable('data_build_jobs')
    .set({ status, error: error ? JSON.stringify(error) : null, finished_at: sql`now()` })
    .where('build_id', '=', buildId)
    .where('position', '=', position)
    .where('status', 'in', ['WAITING', 'RUNNING'])
    .execute();
}

/** The build's end: SUCCEEDED when every job did, FAILED otherwise (CANCELLED stays). */
export async function endBuild(db: DbOrTrx, buildId: string, status?: Extract<BuildStatus, 'CANCELLED'>) {
  const failed = await db
    .selectFrom('data_build_jobs')
    .select('position')
    .where('build_id', '=', buildId)
    .where('status', '!=', 'SUCCEEDED')
    .executeTakeFirst();
  await db
    .updateTable('data_builds')
    .set({ status: status ?? (failed ? 'FAILED' : 'SUCCEEDED'), finished_at: sql`now()` })
    .where('id', '=', buildId)
    .where('status', 'in', ['QUEUED', 'RUNNING'])
    .execute();
  if (status) {
    await db
      .updateTable('data_build_jobs')
      .set({ status: 'CANCELLED', finished_at: sql`now()` })
      .where('build_id', '=', buildId)
      .where('status', 'in', ['WAITING', 'RUNNING'])
      .execute();
  }
}

/** What the relay names a build's run with: its workflow id and company (null: the build is gone). */
export async function buildLabels(db: DbOrTrx, buildId: string) {
  const row = await db
    .selectFrom('data_builds as b')
    .innerJoin('companies as c', 'c.id', 'b.company_id')
    .select(['b.workflow_id', 'c.cell_id', 'c.name'])
    .where('b.id', '=', buildId)
    .executeTakeFirst();
  return row ? { workflowId: row.workflow_id, cellId: row.cell_id, companyName: row.name } : null;
}
