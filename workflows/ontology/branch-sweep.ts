import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';

const { sweepOntologyBranches } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

/**
 * Started daily by the `ontology-branch-sweep` schedule: idle branches become INACTIVE, and 7 days
 * later are deleted. The time is the workflow's, so a time-skipping test moves it.
 */
export async function ontologyBranchSweep(): Promise<{ inactivated: number; deleted: number }> {
  return sweepOntologyBranches({ now: new Date(Date.now()).toISOString() });
}
