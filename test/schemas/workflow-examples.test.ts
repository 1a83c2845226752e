import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseExpression } from '../../domain/app-workflows/expression.ts';
import { workflowJsonSchema } from '../../schemas/manifest/json-schema.ts';
import { workflowSchema } from '../../schemas/manifest/workflow.ts';

// The documented workflow examples (schemas/manifest/README.md, "Workflow") are valid workflows
// whose expressions all parse, and the served JSON Schema describes the same object.

const readme = readFileSync(new URL('../../schemas/manifest/README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## Workflow'));
const examples = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));

function expressions(value: unknown): string[] {
  if (typeof value === 'string') return value.startsWith('=') ? [value] : [];
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(expressions);
  return [];
}

describe('workflow examples', () => {
  it('are valid, with parsable expressions', () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const example of examples) {
      const workflow = workflowSchema.parse(example);
      for (const text of expressions(workflow)) expect(() => parseExpression(text), text).not.toThrow();
    }
  });

  it('the JSON Schema names the workflow’s fields and refuses unknown ones', () => {
    const schema = workflowJsonSchema('https://svc.example/schemas/manifest/workflow/v1.json') as {
      $id: string;
      properties: Record<string, unknown>;
      additionalProperties: boolean;
    };
    expect(schema.$id).toBe('https://svc.example/schemas/manifest/workflow/v1.json');
    expect(Object.keys(schema.properties).sort()).toEqual(['description', 'input', 'steps', 'trigger']);
    expect(schema.additionalProperties).toBe(false);
  });
});
