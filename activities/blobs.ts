import { Context } from '@temporalio/activity';
import { type BlobStore, type BlobSweepProgress, sweepUnreferencedBlobs } from '../domain/apps/index.ts';
import type { Db } from '../domain/db/index.ts';
import { BLOB_SWEEP } from '../workflows/contract.ts';
import { heartbeating } from './heartbeat.ts';

export function createBlobActivities(deps: { db: Db; blobs: BlobStore; blobSweepGraceMs: number }) {
  return {
    /**
     * The whole sweep of the blob store, page by page; heartbeats with how far it got, and a retry
     * (another worker, after this one died) resumes from there. `now` comes from the workflow.
     */
    sweepUnreferencedBlobs: (input: { now: string; dryRun: boolean }) => {
      let progress = Context.current().info.heartbeatDetails as BlobSweepProgress | undefined;
      return heartbeating(
        () =>
          sweepUnreferencedBlobs(
            deps,
            { now: new Date(input.now), graceMs: deps.blobSweepGraceMs, batchSize: BLOB_SWEEP.batchSize, dryRun: input.dryRun },
            progress,
            (p) => {
              progress = p;
            },
          ),
        () => progress,
      );
    },
  };
}
