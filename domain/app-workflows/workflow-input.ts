import { z } from 'zod';
import type { Workflow } from '../../schemas/manifest/index.ts';

// The workflow API's input: the manifest's `workflow.input` parameters as one strict zod schema,
// which validates execute's `input` and, as JSON Schema, describes it in GET .../apis.

const TYPES = {
  text: () => z.string().max(10_000),
  integer: () => z.number().int(),
  real: () => z.number(),
  numeric: () => z.number(),
  boolean: () => z.boolean(),
  date: () => z.iso.date(),
  timestamp: () => z.iso.datetime({ offset: true }),
  json: () => z.json(),
  'text[]': () => z.array(z.string().max(10_000)).max(1000),
  'number[]': () => z.array(z.number()).max(1000),
} as const;

export function workflowInputSchema(workflow: Workflow) {
  return z.strictObject(
    Object.fromEntries(
      Object.entries(workflow.input).map(([name, p]) => {
        const base = TYPES[p.type]().meta({
          ...(p.title ? { title: p.title } : {}),
          ...(p.description ? { description: p.description } : {}),
        });
        return [name, p.required ? base : base.optional()];
      }),
    ),
  );
}

export function workflowInputJsonSchema(workflow: Workflow): Record<string, unknown> {
  const { $schema: _draft, ...schema } = z.toJSONSchema(workflowInputSchema(workflow), { target: 'draft-2020-12', io: 'input' });
  return schema;
}
