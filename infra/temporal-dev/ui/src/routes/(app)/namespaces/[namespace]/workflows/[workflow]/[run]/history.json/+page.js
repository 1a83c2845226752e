// "View Raw History" opens the UI server's download of the run's events.
import { redirect } from '@sveltejs/kit';
import { getEndpointForRawHistory } from '@temporalio/ui/services/events-service';

export function load({ params }) {
  redirect(302, getEndpointForRawHistory({ namespace: params.namespace, workflowId: params.workflow, runId: params.run }));
}
