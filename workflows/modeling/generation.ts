import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';

// A provider may be slow or briefly unavailable: the activity is retried (a refusal by the domain
// is not an error, it ends the generation as failed), for at most an hour in all.
const { runWorldGeneration } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** Runs one accepted world generation (domain/modeling run-generation) and answers its outcome. */
export async function worldGeneration(input: { generationId: string }) {
  return runWorldGeneration(input.generationId);
}
