import { sql } from 'kysely';
import type { Db } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { findObjectTypeRecord, findOntologyOfCompany, upsertObjects } from '../ontology/index.ts';
import { newId } from '../security/index.ts';
import { endJob } from './builds.ts';
import { liveMapping, mapRows } from './mapping.ts';
import { findConnection, readerFor, redactSecrets } from './repository.ts';
import type { ConnectivitySettings } from './settings.ts';
import type { ReadSpec } from './sources/source.ts';

export interface JobOutcome {
  status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
  rowsRead: number;
  pages: number;
}

const jobFailure = (code: string, message: string) => ({ code, message: message.slice(0, 1000) });

/**
 * Runs one job of a build: pages through the sync's source from the job's committed cursor, and
 * commits each page's objects (upserted by primary key through the data layer's one writer) in
 * the same transaction as the cursor after it. A crash between pages loses nothing and repeats
 * nothing: the next attempt starts after the last committed page. An attempt that finds the cursor
 * moved by another (a worker thought dead) stops without writing. `heartbeat` is called after each
 * page; `signal` (cancellation) ends the source's connections.
 *
 * Data problems (a value the property refuses, a missing object type) end the job FAILED at once;
 * other errors (the source unreachable) are thrown, for the caller's retries.
 */
export async function runSyncJob(
  db: Db,
  settings: ConnectivitySettings,
  input: { buildId: string; position: number },
  hooks: { heartbeat(): void; signal?: AbortSignal },
): Promise<JobOutcome> {
  const job = await db
    .selectFrom('data_build_jobs as j')
    .innerJoin('data_builds as b', 'b.id', 'j.build_id')
    .select(['j.sync_id', 'j.status', 'j.cursor', 'j.rows_read', 'j.pages', 'b.company_id', 'b.status as build_status'])
    .where('j.build_id', '=', input.buildId)
    .where('j.position', '=', input.position)
    .executeTakeFirstOrThrow();
  const outcome = (status: JobOutcome['status']): JobOutcome => ({ status, rowsRead: Number(job.rows_read), pages: job.pages });
  if (job.status === 'SUCCEEDED' || job.status === 'FAILED' || job.status === 'CANCELLED') return outcome(job.status);
  if (job.build_status === 'CANCELLED') return outcome('CANCELLED');
  const sync = job.sync_id ? await db.selectFrom('data_syncs').selectAll().where('id', '=', job.sync_id).executeTakeFirst() : undefined;
  if (!sync) {
    await endJob(db, input.buildId, input.position, 'FAILED', jobFailure('sync_not_found', 'The sync was deleted.'));
    return outcome('FAILED');
  }
  let cursor: unknown = job.cursor;
  if (job.status === 'WAITING') {
    // The job's start: an incremental sync continues from its last committed position, a full refresh from the beginning.
    const started = await db
      .updateTable('data_build_jobs')
      .set({
        status: 'RUNNING',
        started_at: sql`now()`,
        cursor: sync.mode === 'incremental' && sync.cursor ? JSON.stringify(sync.cursor) : null,
      })
      .where('build_id', '=', input.buildId)
      .where('position', '=', input.position)
      .where('status', '=', 'WAITING')
      .returning('cursor')
      .executeTakeFirst();
    if (!started) return runSyncJob(db, settings, input, hooks);
    cursor = started.cursor;
  }
  const ontology = await findOntologyOfCompany(db, sync.company_id);
  const type = ontology && (await findObjectTypeRecord(db, ontology.id, sync.object_type));
  if (!type) {
    await endJob(db, input.buildId, input.position, 'FAILED', jobFailure('object_type_not_found', `No object type ${sync.object_type}.`));
    return outcome('FAILED');
  }
  const mapping = liveMapping(type, sync.mapping);
  const spec: ReadSpec = {
    source: sync.source,
    columns: mapping.map(([, column]) => column),
    keyColumn: sync.mapping[type.primaryKey]!,
    mode: sync.mode,
    cursorColumn: sync.cursor_column,
    pageSize: sync.page_size,
  };
  const connection = await findConnection(db, sync.company_id, sync.connection_id);
  const reader = readerFor(settings, connection, hooks.signal);
  let rowsRead = Number(job.rows_read);
  let pages = job.pages;
  // The next page is read while this one is written (the source's connection would idle), from
  // the cursor this page commits as the database gives it back; it is used only once that commit is done.
  const read = (at: unknown) => {
    const page = reader.readPage(spec, JSON.parse(JSON.stringify(at ?? null)));
    page.catch(() => {}); // awaited when used; a page never used (the job ended) must not fail the process
    return page;
  };
  let reading = read(cursor);
  try {
    for (;;) {
      const page = await reading;
      if (!page.done) reading = read(page.cursor);
      const byKey = mapRows(type, mapping, page.rows);
      const moved = await db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom('data_build_jobs')
          .select(['cursor', 'status'])
          .where('build_id', '=', input.buildId)
          .where('position', '=', input.position)
          .forUpdate()
          .executeTakeFirstOrThrow();
        if (current.status !== 'RUNNING' || JSON.stringify(current.cursor) !== JSON.stringify(cursor ?? null)) return null;
        const written = byKey.size
          ? (
              await upsertObjects(trx, {
                companyId: sync.company_id,
                objectType: type.apiName,
                operationId: newId('ope'),
                objects: [...byKey.values()].map((v) => v.object),
              })
            ).objects.length
          : 0;
        const next = JSON.stringify(page.cursor ?? null);
        const updated = await trx
          .updateTable('data_build_jobs')
          .set({
            cursor: next,
            rows_read: sql`rows_read + ${page.rows.length}`,
            rows_written: sql`rows_written + ${written}`,
            pages: sql`pages + 1`,
          })
          .where('build_id', '=', input.buildId)
          .where('position', '=', input.position)
          .returning('cursor')
          .executeTakeFirstOrThrow();
        if (sync.mode === 'incremental') await trx.updateTable('data_syncs').set({ cursor: next }).where('id', '=', sync.id).execute();
        return updated.cursor;
      });
      if (moved === null) return { status: 'CANCELLED', rowsRead, pages };
      cursor = moved;
      rowsRead += page.rows.length;
      pages += 1;
      hooks.heartbeat();
      if (page.done) break;
    }
  } catch (err) {
    // A source's own failure goes to Temporal (retries, then the job's error) and the worker's log: never with a secret in it.
    if (!(err instanceof DomainError)) throw new Error(redactSecrets(settings, connection, (err as Error).message ?? String(err)));
    await endJob(db, input.buildId, input.position, 'FAILED', jobFailure(err.code, err.message));
    return { status: 'FAILED', rowsRead, pages };
  } finally {
    await reader.close();
  }
  await endJob(db, input.buildId, input.position, 'SUCCEEDED', null);
  return { status: 'SUCCEEDED', rowsRead, pages };
}
