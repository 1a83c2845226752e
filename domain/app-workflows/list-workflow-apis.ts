import type { DbOrTrx } from '../db/database.ts';
import type { Principal } from '../principal.ts';
import { appOfCaller } from './app-of-caller.ts';
import { channelWorkflow } from './definition.ts';
import { workflowInputJsonSchema } from './workflow-input.ts';

/** The API name of an app's workflow: `POST .../apis/run/execute`. */
export const WORKFLOW_API_NAME = 'run';

export interface WorkflowApi {
  name: string;
  kind: 'workflow';
  description: string;
  inputSchema: Record<string, unknown>;
  returns: string;
  route: string;
  command: string;
}

/**
 * The workflow part of GET .../apis: the production workflow as the API `run` (the exports'
 * part is listed beside it by the apps' API listing).
 */
export async function listWorkflowApis(db: DbOrTrx, principal: Principal, namespace: string, slug: string): Promise<WorkflowApi[]> {
  const app = await appOfCaller(db, principal, namespace, slug);
  const current = await channelWorkflow(db, app.id, 'production');
  if (!current) return [];
  return [
    {
      name: WORKFLOW_API_NAME,
      kind: 'workflow',
      description: current.workflow.description || `Runs the workflow of ${namespace}/${slug} (${current.workflow.steps.length} steps).`,
      inputSchema: workflowInputJsonSchema(current.workflow),
      returns: 'the run: status, each step’s status, duration and output, and its Temporal workflow id',
      route: `POST /api/v1/developer/apps/${namespace}/${slug}/apis/${WORKFLOW_API_NAME}/execute`,
      command: `svc apps call ${namespace}/${slug} ${WORKFLOW_API_NAME} --input '{}'`,
    },
  ];
}
