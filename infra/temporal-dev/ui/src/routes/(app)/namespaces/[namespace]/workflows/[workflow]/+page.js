// A workflow id without a run opens its latest run.
import { error, redirect } from '@sveltejs/kit';
import { fetchWorkflowForRunId } from '@temporalio/ui/services/workflow-service';

export async function load({ url, params }) {
  const { runId } = await fetchWorkflowForRunId({ namespace: params.namespace, workflowId: params.workflow });
  if (!runId) error(404);
  redirect(302, `${url.pathname}/${runId}`);
}
