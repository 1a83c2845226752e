import { removeUnusedAttachments } from '../domain/attachments/index.ts';
import type { Db } from '../domain/db/index.ts';

export function createAttachmentActivities(deps: { db: Db }) {
  return {
    /** One batch of the removal of unused attachments; `now` comes from the workflow, so time skipping applies. */
    removeUnusedAttachments: (input: { now: string; batchSize: number }) =>
      removeUnusedAttachments(deps.db, { now: new Date(input.now), batchSize: input.batchSize }),
  };
}
