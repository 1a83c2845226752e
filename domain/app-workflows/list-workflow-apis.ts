import type { AppApi } from '../../schemas/app-surface.ts';
import type { Manifest } from '../../schemas/manifest/index.ts';
import { workflowInputJsonSchema } from './workflow-input.ts';

/** The API name of an app's workflow: `POST .../apis/run/execute`. */
export const WORKFLOW_API_NAME = 'run';

/**
 * The workflow part of GET .../apis: a manifest's workflow as the API `run`, beside its exports
 * (domain/app-surface/list-app-apis.ts lists both).
 */
export function workflowApisOf(manifest: Manifest, app: { namespace: string; slug: string }): AppApi[] {
  const workflow = manifest.workflow;
  if (!workflow) return [];
  return [
    {
      name: WORKFLOW_API_NAME,
      title: `${manifest.title}: run the workflow`.slice(0, 120),
      description: workflow.description || `Runs the workflow of ${app.namespace}/${app.slug} (${workflow.steps.length} steps).`,
      kind: 'workflow',
      write: true,
      input: workflowInputJsonSchema(workflow),
      returns: {
        type: 'object',
        description: 'The run: status, each step’s status, duration and output, and its Temporal workflow id.',
      },
      route: `/api/v1/developer/apps/${app.namespace}/${app.slug}/apis/${WORKFLOW_API_NAME}/execute`,
      mcpTool: WORKFLOW_API_NAME,
    },
  ];
}
