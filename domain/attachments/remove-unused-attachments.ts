import { sql } from 'kysely';
import { ATTACHMENT_LIMITS } from '../../schemas/attachments.ts';
import type { DbOrTrx } from '../db/index.ts';

/**
 * One batch of the removal of unused attachments: those no object holds an hour or more after
 * their upload (the scheduled `attachmentsRemoval` workflow calls it until a batch comes back
 * short). Their bytes, shared by hash with media items and app files, go with the blob sweep
 * (domain/apps/sweep-unreferenced-blobs.ts) once nothing names them.
 */
export async function removeUnusedAttachments(db: DbOrTrx, input: { now: Date; batchSize: number }): Promise<{ removed: number }> {
  const before = new Date(input.now.getTime() - ATTACHMENT_LIMITS.unusedMs);
  const removed = await db
    .deleteFrom('attachments')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('attachments as a')
        .select('a.id')
        .where('a.created_at', '<=', before)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('attachment_links as l').select(sql`1`.as('one')).whereRef('l.attachment_id', '=', 'a.id'))),
        )
        .orderBy('a.created_at')
        .limit(input.batchSize),
    )
    .executeTakeFirst();
  return { removed: Number(removed.numDeletedRows) };
}
