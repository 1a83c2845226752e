import { sql } from 'kysely';
import type { Db } from '../../db/index.ts';

const HOUR_MS = 3_600_000;

/**
 * Deletes one batch of changes older than `keepHours` at `now` and moves the trim mark past them,
 * in one transaction: a subscription resuming below the mark is told to reload (refreshObjectSet).
 * Returns how many were deleted (fewer than `batchSize`: nothing older is left).
 */
export async function trimChanges(db: Db, input: { now: Date; keepHours: number; batchSize: number }): Promise<number> {
  const cutoff = new Date(input.now.getTime() - input.keepHours * HOUR_MS);
  return db.transaction().execute(async (trx) => {
    const deleted = await sql<{ seq: number }>`
      DELETE FROM ontology_changes WHERE seq IN (
        SELECT seq FROM ontology_changes WHERE at < ${cutoff} ORDER BY at LIMIT ${input.batchSize} FOR UPDATE SKIP LOCKED)
      RETURNING seq`.execute(trx);
    if (deleted.rows.length === 0) return 0;
    const through = Math.max(...deleted.rows.map((r) => Number(r.seq)));
    await trx
      .updateTable('ontology_changes_trimmed')
      .set({ through_seq: sql<number>`greatest(through_seq, ${through})` })
      .execute();
    return deleted.rows.length;
  });
}
