import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import { ONTOLOGY_CHANGES_RETENTION } from '../contract.ts';

const { trimOntologyChanges } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

/**
 * Started hourly by the `ontology-changes-retention` schedule: deletes changes older than the kept
 * hours in batches until none are left (or `maxBatches`, the rest waiting for the next run). The
 * cutoff is the workflow's time, so a time-skipping test moves it.
 */
export async function ontologyChangesRetention(): Promise<{ deleted: number; batches: number }> {
  const now = new Date(Date.now()).toISOString();
  const { keepHours, batchSize, maxBatches } = ONTOLOGY_CHANGES_RETENTION;
  let deleted = 0;
  let batches = 0;
  while (batches < maxBatches) {
    const n = await trimOntologyChanges({ now, keepHours, batchSize });
    deleted += n;
    batches++;
    if (n < batchSize) break;
  }
  return { deleted, batches };
}
