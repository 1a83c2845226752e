import { sql } from 'kysely';
import type { Db } from '../db/index.ts';
import { unreferenced } from './blob-references.ts';
import type { BlobStore } from './blob-store.ts';

/** How far a sweep got: the next page starts after `after` ('' at the start); a retried sweep resumes from it. */
export interface BlobSweepProgress {
  after: string;
  /** Blobs seen in the store. */
  examined: number;
  /** Blobs deleted (a dry run: that would have been). */
  removed: number;
  /** The store was walked to its end. */
  done: boolean;
}

export interface BlobSweepInput {
  /** The grace period ends `graceMs` before this: a blob written or re-used since is kept. */
  now: Date;
  graceMs: number;
  batchSize: number;
  /** Counts what would go and deletes nothing. */
  dryRun: boolean;
}

/** Thrown to roll a dry run's batch back once it counted (its locks and ledger rows with it). */
class DryRunRollback extends Error {
  readonly count: number;
  constructor(count: number) {
    super('dry run');
    this.count = count;
  }
}

/**
 * Deletes the blobs no row names (BLOB_REFERENCES) and that nobody wrote or re-used within the
 * grace period, from whichever store holds them, a page of `batchSize` keys at a time in key
 * order: cost linear in the number of blobs, one index lookup per referencing column and blob.
 *
 * Race-safe with writers: each page's candidates are locked in `blob_writes` (rows made for
 * blobs stored before the ledger, dated by the store) and re-checked in that one statement:
 * older than the grace period, no referencing row. They are deleted from the store while the
 * lock is held. A writer touches its keys' rows before it writes or re-uses them: one that came
 * first made the row young (kept); one that comes later waits for the lock, then finds the blob
 * gone and stores it again. A writer must make its row reference within the grace period of its write.
 */
export async function sweepUnreferencedBlobs(
  deps: { db: Db; blobs: BlobStore },
  input: BlobSweepInput,
  from: BlobSweepProgress = { after: '', examined: 0, removed: 0, done: false },
  progress: (p: BlobSweepProgress) => void = () => undefined,
): Promise<BlobSweepProgress> {
  const cutoff = new Date(input.now.getTime() - input.graceMs);
  // First the composites no row names, so their parts are unreferenced in the walk below (once per
  // sweep, not on a resumed one; a dry run drops none, so it keeps their parts in its count).
  if (from.after === '' && !input.dryRun) await sweepComposites(deps.db, cutoff, input.batchSize);
  let state = from;
  while (!state.done) {
    const page = await deps.blobs.list(state.after, input.batchSize);
    const removed = page.blobs.length > 0 ? await sweepPage(deps, page.blobs, cutoff, input.dryRun) : 0;
    state = {
      after: page.next ?? state.after,
      examined: state.examined + page.blobs.length,
      removed: state.removed + removed,
      done: page.next === undefined,
    };
    progress(state);
  }
  return state;
}

/**
 * Drops the composite media items (domain/media/composite-items.ts) that no row names and that
 * nobody recorded or re-used within the grace period, a page of `batchSize` at a time, under the
 * blobs' locking: a composite's hash has its row in `blob_writes` like a blob's (the assembly
 * touches it before it records or reuses the composite), locked and re-checked here in the statement
 * that finds the doomed. Their parts are then referenced no longer (unless another row names them).
 */
async function sweepComposites(db: Db, cutoff: Date, batchSize: number): Promise<void> {
  for (let after: Buffer = Buffer.alloc(0); ; ) {
    const page = await db
      .selectFrom('media_composites')
      .select(['sha256', 'created_at'])
      .where('sha256', '>', after)
      .orderBy('sha256')
      .limit(batchSize)
      .execute();
    if (page.length === 0) return;
    await db.transaction().execute(async (trx) => {
      const hashes = page.map((c) => c.sha256);
      // Composites recorded before the ledger had their hash: dated by their own row.
      await trx
        .insertInto('blob_writes')
        .values(page.map((c) => ({ sha256: c.sha256, written_at: c.created_at })))
        .onConflict((oc) => oc.column('sha256').doNothing())
        .execute();
      const doomed = await trx
        .selectFrom('blob_writes as w')
        .select('w.sha256')
        .where('w.sha256', 'in', hashes)
        .where('w.written_at', '<', cutoff)
        .where(unreferenced(sql.ref('w.sha256')))
        .orderBy('w.sha256')
        .forUpdate()
        .execute();
      if (doomed.length === 0) return;
      const gone = doomed.map((d) => d.sha256);
      await trx.deleteFrom('media_composites').where('sha256', 'in', gone).execute();
      // Their ledger rows go too (a hash also stored as a blob gets its row again in the walk, dated by the store).
      await trx.deleteFrom('blob_writes').where('sha256', 'in', gone).execute();
    });
    if (page.length < batchSize) return;
    after = page.at(-1)!.sha256;
  }
}

async function sweepPage(
  deps: { db: Db; blobs: BlobStore },
  listed: { sha256: string; storedAt: Date }[],
  cutoff: Date,
  dryRun: boolean,
): Promise<number> {
  try {
    return await deps.db.transaction().execute(async (trx) => {
      // Sorted like the writers' touches, so the two lock rows in one order.
      const rows = listed
        .map((b) => ({ sha256: Buffer.from(b.sha256, 'hex'), written_at: b.storedAt }))
        .sort((a, b) => a.sha256.compare(b.sha256));
      await trx
        .insertInto('blob_writes')
        .values(rows)
        .onConflict((oc) => oc.column('sha256').doNothing())
        .execute();
      const doomed = await trx
        .selectFrom('blob_writes as w')
        .select('w.sha256')
        .where(
          'w.sha256',
          'in',
          rows.map((r) => r.sha256),
        )
        .where('w.written_at', '<', cutoff)
        .where(unreferenced(sql.ref('w.sha256')))
        .orderBy('w.sha256')
        .forUpdate()
        .execute();
      if (dryRun) throw new DryRunRollback(doomed.length);
      if (doomed.length === 0) return 0;
      await deps.blobs.remove(
        doomed.map((d) => d.sha256.toString('hex')),
        trx,
      );
      await trx
        .deleteFrom('blob_writes')
        .where(
          'sha256',
          'in',
          doomed.map((d) => d.sha256),
        )
        .execute();
      return doomed.length;
    });
  } catch (err) {
    if (err instanceof DryRunRollback) return err.count;
    throw err;
  }
}
