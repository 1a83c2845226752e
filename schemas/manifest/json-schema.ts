import { z } from 'zod';
import { manifestSchema } from './manifest.ts';
import { workflowSchema } from './workflow.ts';

/** Where the service serves the schema under {base_url}: the `$schema` of manifests (`svc init` writes it). */
export const MANIFEST_SCHEMA_PATH = '/schemas/manifest/v1.json';

/**
 * JSON Schema (draft 2020-12) of the manifest as authors write it (input side: defaulted fields
 * are optional, legacy values accepted), for editors via `$schema`. `id` is the URL it is served
 * at, e.g. `{base_url}/schemas/manifest/v1.json`. Cross-field rules are enforced by parseManifest only.
 */
export function manifestJsonSchema(id: string): Record<string, unknown> {
  const { $schema, ...schema } = z.toJSONSchema(manifestSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
  return { $schema, $id: id, title: 'svc app manifest', ...schema };
}

/** Where the workflow object's own schema is served, beside the manifest's. */
export const WORKFLOW_SCHEMA_PATH = '/schemas/manifest/workflow/v1.json';

/** JSON Schema (draft 2020-12) of the manifest's `workflow` object alone (input side, like the manifest's). */
export function workflowJsonSchema(id: string): Record<string, unknown> {
  const { $schema, ...schema } = z.toJSONSchema(workflowSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
  return { $schema, $id: id, title: 'svc app workflow', ...schema };
}
