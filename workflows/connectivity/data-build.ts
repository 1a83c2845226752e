import { ActivityFailure, CancellationScope, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import type { DataBuildInput } from '../contract.ts';

const { recordScheduledDataBuild, startDataBuild, endDataSyncJob, endDataBuild } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

// A job pages through its source for as long as it needs; a worker lost in the middle is noticed
// within the heartbeat timeout and the job retried on another, from its last committed page. A
// source that stays unreachable fails the job after five attempts.
const { runDataSyncJob } = proxyActivities<Activities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

const ENDED = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

/**
 * A build: its jobs one after another in dependency order. A job whose dependency did not succeed
 * fails (dependency_failed) without running; the others still run. Cancelling the run (the API's
 * cancel) stops the job in flight; pages committed stay.
 */
export async function dataBuild(input: DataBuildInput): Promise<{ buildId: string | null; jobs: Record<number, string> }> {
  const buildId =
    'buildId' in input
      ? input.buildId
      : await recordScheduledDataBuild({ syncId: input.scheduledSyncId, workflowId: workflowInfo().workflowId });
  const outcome: Record<number, string> = {};
  if (!buildId) return { buildId, jobs: outcome };
  try {
    const plan = await startDataBuild(buildId);
    if (plan.status !== 'RUNNING') return { buildId, jobs: outcome };
    for (const job of plan.jobs) {
      if (ENDED.includes(job.status)) {
        outcome[job.position] = job.status;
        continue;
      }
      const failed = job.dependsOn.find((d) => outcome[d] !== 'SUCCEEDED');
      if (failed !== undefined) {
        await endDataSyncJob({
          buildId,
          position: job.position,
          error: { code: 'dependency_failed', message: `Job ${failed}, which this one depends on, did not succeed.` },
        });
        outcome[job.position] = 'FAILED';
        continue;
      }
      try {
        const result = await runDataSyncJob({ buildId, position: job.position });
        outcome[job.position] = result.status;
        if (result.status === 'CANCELLED') break;
      } catch (err) {
        if (isCancellation(err)) throw err;
        const cause = err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : String(err);
        await endDataSyncJob({ buildId, position: job.position, error: { code: 'source_failed', message: cause.slice(0, 1000) } });
        outcome[job.position] = 'FAILED';
      }
    }
    await endDataBuild({ buildId });
    return { buildId, jobs: outcome };
  } catch (err) {
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => endDataBuild({ buildId, cancelled: true }));
    throw err;
  }
}
