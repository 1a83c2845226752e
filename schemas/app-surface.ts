import { z } from 'zod';
import { AppSummary, Channel } from './apps.ts';
import type { QueryExport } from './manifest/exports.ts';

// What an app offers to agents, hosts and catalogs (spec B: apis, about, card, registry, mcp).
// Shared with the CLI and the SDK.

export const AppApi = z
  .object({
    name: z.string(),
    title: z.string(),
    description: z.string(),
    kind: z.enum(['query', 'workflow']).meta({ description: 'query: an export (a read); workflow: the app workflow (`run`).' }),
    write: z.boolean().meta({ description: 'Whether the API changes data (write APIs accept `preview`).' }),
    input: z.record(z.string(), z.unknown()).meta({ description: 'JSON Schema (draft 2020-12) of the input object.' }),
    returns: z.record(z.string(), z.unknown()).meta({ description: 'JSON Schema of the result.' }),
    route: z.string().meta({ description: 'The HTTP call: POST to this path with `{input, preview?, channel?}`.' }),
    mcpTool: z.string().meta({ description: 'The tool name in the app’s MCP endpoint (dots become double underscores).' }),
  })
  .meta({ id: 'AppApi' });
export type AppApi = z.input<typeof AppApi>;

export const AppApis = z.object({
  app: z.object({ namespace: z.string(), slug: z.string() }),
  channel: Channel,
  version: z.string(),
  apis: z.array(AppApi),
  skills: z.array(z.object({ name: z.string(), description: z.string() })),
  examples: z.array(z.string()).meta({ description: 'Sample phrases a person says to an agent.' }),
});

export const AppAbout = z.object({
  markdown: z.string().meta({ description: 'The agent-readable description (the same as `<address>/about.md`).' }),
  copy: z.string().meta({ description: 'The one line to paste into an agent.' }),
});

export const Use7d = z
  .object({
    opens: z.number().int().meta({ description: 'App opens (usage/open records) in the last 7 UTC days, today included.' }),
    visitors: z.number().int().meta({ description: 'People whose latest app-log activity falls in those days.' }),
  })
  .meta({ id: 'Use7d' });

export const AppCard = z
  .object({
    app: z.object({ namespace: z.string(), slug: z.string(), title: z.string(), summary: z.string(), category: z.string() }),
    owner: z.object({ department: z.string().nullable(), team: z.string().nullable(), contact: z.string().nullable() }),
    version: z.object({ production: z.string().nullable(), test: z.string().nullable(), shown: z.string() }),
    sdk: z.object({
      registered: z.array(z.string()).meta({ description: 'The manifest’s `sdk`.' }),
      used: z.array(z.string()).meta({ description: 'SDKs the bundle analysis found the files using.' }),
    }),
    data: z.object({ read: z.array(z.string()), written: z.array(z.string()), actions: z.array(z.string()) }),
    exports: z.array(z.string()),
    dependencies: z.object({
      models: z.array(z.string()),
      datasets: z.array(z.string()),
      streams: z.array(z.string()),
      cameras: z.array(z.string()),
      cdn: z.array(z.string()),
    }),
    access: z.object({ scope: z.enum(['company', 'restricted']), publicLink: z.enum(['signin', 'members']) }),
    use7d: Use7d,
    spend: z
      .object({ month: z.string(), totalMicroUsd: z.number().int() })
      .nullable()
      .meta({ description: 'This UTC month’s spend; only for company developers (null otherwise).' }),
  })
  .meta({ id: 'AppCard' });
export type AppCard = z.input<typeof AppCard>;

/** A registry row: the app's summary and the card's headline fields. */
export const RegistryRow = AppSummary.omit({ latest: true })
  .extend({
    latestBuild: z.number().int(),
    version: z.string().meta({ description: 'The version shown: production, else the newest upload.' }),
    sdk: AppCard.shape.sdk,
    access: AppCard.shape.access,
    exports: z.array(z.string()),
    use7d: Use7d,
  })
  .meta({ id: 'RegistryRow' });

/** MCP tool names cannot hold dots: `a.b` is the tool `a__b` (spec B, mcp). */
export const mcpToolName = (apiName: string) => apiName.replaceAll('.', '__');

const INPUT_TYPES: Record<QueryExport['input'][string]['type'], () => z.ZodType> = {
  text: () => z.string(),
  integer: () => z.int(),
  real: () => z.number(),
  numeric: () => z.number(),
  boolean: () => z.boolean(),
  date: () => z.iso.date(),
  timestamp: () => z.iso.datetime({ offset: true }),
  json: () => z.unknown(),
  'text[]': () => z.array(z.string()),
  'number[]': () => z.array(z.number()),
};

/** An export's input as a strict zod object: one property per declared parameter, nothing else. */
export function exportInput(item: QueryExport) {
  return z.strictObject(
    Object.fromEntries(
      Object.entries(item.input).map(([name, p]) => {
        const typed = INPUT_TYPES[p.type]().meta({
          ...(p.title ? { title: p.title } : {}),
          ...(p.description ? { description: p.description } : {}),
        });
        return [name, p.required ? typed : typed.optional()];
      }),
    ),
  );
}

/** The JSON Schema of an export's input, generated from the zod object calls are checked with. */
export function exportInputSchema(item: QueryExport): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(exportInput(item), { io: 'input' });
  return schema;
}

/** A query answers objects of its type, with the selected properties (all when none are selected). */
export function exportResultSchema(item: QueryExport): Record<string, unknown> {
  const objectSchema =
    item.select.length > 0
      ? { type: 'object', properties: Object.fromEntries(item.select.map((p) => [p, {}])), description: `${item.type} objects` }
      : { type: 'object', description: `${item.type} objects` };
  return { type: 'object', properties: { data: { type: 'array', maxItems: item.limit, items: objectSchema } }, required: ['data'] };
}
