import type { BlobStore } from '../domain/apps/index.ts';
import type { Db } from '../domain/db/index.ts';
import { systemClock } from '../domain/deps.ts';
import { runGeneration } from '../domain/modeling/index.ts';

export function createModelingActivities(deps: { db: Db; blobs: BlobStore }) {
  return {
    /** One accepted world generation: the provider's scene stored as its asset. */
    runWorldGeneration: (generationId: string) => runGeneration({ db: deps.db, blobs: deps.blobs, clock: systemClock }, generationId),
  };
}
