import { z } from 'zod';
import { CellId } from './identity.ts';
import { operatorObject, sortKey } from './manifest/exports.ts';
import { boundedRecord, dottedName, identifier, propertyName, rejectDuplicates, scalar } from './manifest/patterns.ts';
import { Aggregation, OntologyObject } from './ontology.ts';

// Application modules (docs/api/workshop.md): the no-code counterpart of a bundle app. A module is
// pages of widgets bound to object sets and actions of the company's ontology; each save is a
// numbered version, one published version is what members open. Object-set bindings read like a
// manifest's query exports (where/sort/limit), with `=input.<variable>` for the page's variables.

export const WORKSHOP_MODULE_RID_PREFIX = 'ri.workshop.svc.module.';
export const WORKSHOP_LIMITS = {
  pages: 20,
  widgetsPerPage: 40,
  variables: 40,
  markdownChars: 20_000,
  /** Spec Limits: auto-refresh, minimum 10 seconds between refreshes. */
  minRefreshSeconds: 10,
  maxRefreshSeconds: 3600,
} as const;

export const ModuleRid = z
  .string()
  .max(120)
  .regex(
    /^ri\.workshop\.svc\.module\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    'must be a module rid (ri.workshop.svc.module.<uuid>)',
  );

/** A where value: a literal, or `=input.<variable>` (the page's variable; a condition on an unset variable is dropped). */
const whereValue = z.union([scalar, operatorObject]);

/** The objects a widget shows: one object type, filtered, sorted and limited as a manifest's query export. */
export const ObjectSetBinding = z.strictObject({
  objectType: dottedName,
  where: boundedRecord(propertyName, whereValue, 0, 40).default({}),
  sort: z.array(sortKey).max(3).default([]),
  limit: z.number().int().min(1).max(500).default(50).meta({ description: 'Objects per page of a table (and at most per aggregate).' }),
});
export type ObjectSetBinding = z.output<typeof ObjectSetBinding>;

const title = z.string().trim().min(1).max(120);
const base = { id: identifier, title: title.optional() };

const TableWidget = z.strictObject({
  ...base,
  type: z.literal('table'),
  objectSet: ObjectSetBinding,
  columns: z.array(propertyName).max(40).default([]).meta({ description: 'Properties shown, in order; empty: all readable ones.' }),
});

const ObjectViewWidget = z.strictObject({
  ...base,
  type: z.literal('objectView'),
  objectType: dottedName,
  primaryKey: z.union([z.string().max(1000), z.number()]).meta({ description: 'A literal, or `=input.<variable>`.' }),
  properties: z.array(propertyName).max(40).default([]),
});

const MetricWidget = z.strictObject({
  ...base,
  type: z.literal('metric'),
  objectSet: ObjectSetBinding,
  aggregation: Aggregation,
});

const ChartWidget = z.strictObject({
  ...base,
  type: z.literal('chart'),
  chart: z.enum(['bar', 'line', 'pie']).default('bar'),
  objectSet: ObjectSetBinding,
  groupBy: propertyName,
  aggregation: Aggregation,
});

const FormWidget = z.strictObject({
  ...base,
  type: z.literal('form'),
  action: dottedName,
  defaults: boundedRecord(z.string().min(1).max(100), scalar, 0, 40)
    .default({})
    .meta({ description: 'Parameter values filled in (a literal, or `=input.<variable>`).' }),
});

const MarkdownWidget = z.strictObject({ ...base, type: z.literal('markdown'), text: z.string().max(WORKSHOP_LIMITS.markdownChars) });

export const Widget = z.discriminatedUnion('type', [TableWidget, ObjectViewWidget, MetricWidget, ChartWidget, FormWidget, MarkdownWidget]);
export type Widget = z.output<typeof Widget>;

export const AutoRefresh = z.strictObject({
  enabled: z.boolean(),
  intervalSeconds: z.number().int().min(WORKSHOP_LIMITS.minRefreshSeconds).max(WORKSHOP_LIMITS.maxRefreshSeconds).default(30),
});

export const Page = z
  .strictObject({
    id: identifier,
    title,
    widgets: z.array(Widget).max(WORKSHOP_LIMITS.widgetsPerPage),
    autoRefresh: AutoRefresh.default({ enabled: false, intervalSeconds: 30 }),
  })
  .superRefine((page, ctx) =>
    rejectDuplicates(
      ctx,
      page.widgets,
      (w) => [w.id],
      (i) => ['widgets', i, 'id'],
      'widget id',
    ),
  );
export type Page = z.output<typeof Page>;

const Variable = z.strictObject({
  type: z.enum(['string', 'number', 'boolean']),
  default: scalar.optional(),
  title: title.optional(),
});

export const ModuleDefinition = z
  .strictObject({
    title,
    description: z.string().max(2000).default(''),
    variables: boundedRecord(identifier, Variable, 0, WORKSHOP_LIMITS.variables).default({}),
    pages: z.array(Page).min(1).max(WORKSHOP_LIMITS.pages),
  })
  .superRefine((d, ctx) =>
    rejectDuplicates(
      ctx,
      d.pages,
      (p) => [p.id],
      (i) => ['pages', i, 'id'],
      'page id',
    ),
  );
export type ModuleDefinition = z.output<typeof ModuleDefinition>;

/** Where the service serves the definition's JSON Schema (the `$schema` of module files). */
export const WORKSHOP_SCHEMA_PATH = '/schemas/workshop/module/v1.json';

/** JSON Schema (draft 2020-12) of a module definition as authors write it (defaults optional). */
export function moduleJsonSchema(id: string): Record<string, unknown> {
  const { $schema, ...schema } = z.toJSONSchema(ModuleDefinition, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
  return { $schema, $id: id, title: 'svc application module', ...schema };
}

// API shapes.

export const CreateModuleInput = z.strictObject({
  organization: CellId.optional().meta({ description: 'The company; defaults to the caller’s one company.' }),
  name: z.string().trim().min(1).max(200),
  access: z.enum(['company', 'restricted']).default('company').meta({
    description:
      '`company`: its members may open the published version (a Viewer grant to the company); `restricted`: only those it is shared with.',
  }),
  definition: ModuleDefinition,
});
export type CreateModuleInput = z.output<typeof CreateModuleInput>;

export const SaveVersionInput = z.strictObject({ definition: ModuleDefinition });

export const ModuleView = z.object({
  rid: z.string(),
  name: z.string(),
  organization: z.string(),
  role: z.enum(['owner', 'editor', 'viewer']),
  latestVersion: z.number().int().nullable().meta({ description: 'Null for callers who only see the published version.' }),
  publishedVersion: z.number().int().nullable(),
  createdAt: z.string(),
});
export type ModuleView = z.infer<typeof ModuleView>;

export const VersionView = z.object({
  version: z.number().int(),
  published: z.boolean(),
  createdAt: z.string(),
  createdBy: z.string().nullable(),
  definition: ModuleDefinition,
});
export type VersionView = z.infer<typeof VersionView>;

export const VersionSummary = VersionView.omit({ definition: true });

export const EvaluateInput = z.strictObject({
  page: identifier,
  version: z.number().int().min(1).optional().meta({ description: 'Editors and Owners may name any version; default: the published one.' }),
  variables: boundedRecord(identifier, scalar, 0, WORKSHOP_LIMITS.variables).default({}),
  pageTokens: boundedRecord(identifier, z.string().min(1).max(2000), 0, WORKSHOP_LIMITS.widgetsPerPage)
    .default({})
    .meta({ description: 'A table widget’s next page: its id to the `nextPageToken` of its last answer.' }),
});
export type EvaluateInput = z.output<typeof EvaluateInput>;

const WidgetError = z.object({ code: z.string(), message: z.string() });

export const WidgetResult = z.object({
  id: z.string(),
  type: z.string(),
  title: z.string().optional(),
  error: WidgetError.optional().meta({ description: 'The widget could not be computed for this caller (e.g. object_type_not_found).' }),
  objects: z.array(OntologyObject).optional(),
  columns: z.array(z.string()).optional(),
  nextPageToken: z.string().optional(),
  totalCount: z.number().int().optional(),
  object: OntologyObject.nullable().optional(),
  value: z.union([z.number(), z.string(), z.null()]).optional(),
  groups: z.array(z.object({ key: z.unknown(), value: z.union([z.number(), z.string(), z.null()]) })).optional(),
  chart: z.string().optional(),
  action: z.object({ apiName: z.string(), displayName: z.string().optional(), parameters: z.record(z.string(), z.unknown()) }).optional(),
  defaults: z.record(z.string(), z.unknown()).optional(),
  inputs: z
    .record(z.string(), z.enum(['text', 'number', 'boolean']))
    .optional()
    .meta({ description: 'How a form enters each parameter (an object reference as its type’s primary key).' }),
  text: z.string().optional(),
});
export type WidgetResult = z.infer<typeof WidgetResult>;

export const EvaluateResult = z.object({
  rid: z.string(),
  version: z.number().int(),
  page: z.object({ id: z.string(), title: z.string(), autoRefresh: AutoRefresh }),
  widgets: z.array(WidgetResult),
});
export type EvaluateResult = z.infer<typeof EvaluateResult>;

export const AutoRefreshQuery = z.strictObject({
  page: identifier,
  version: z.coerce.number().int().min(1).optional(),
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});
