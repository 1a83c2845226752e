import { z } from 'zod';

// App workflow contracts (runs, the watch stream, workflow APIs, the capability catalog, the
// mail test), shared by the service, the CLI and the SDK.

export const StepView = z.object({
  id: z.string(),
  kind: z.string(),
  status: z.enum(['running', 'succeeded', 'failed', 'skipped', 'suppressed']),
  startedAt: z.string(),
  durationMs: z.number().int(),
  output: z.unknown(),
  error: z.string().optional(),
});

export const RunView = z.object({
  id: z.string(),
  trigger: z.enum(['schedule', 'change', 'api']),
  channel: z.enum(['test', 'production']),
  version: z.string(),
  status: z.enum(['running', 'succeeded', 'failed']),
  workflowId: z.string().meta({ description: 'The Temporal workflow id: open it in the Temporal Web UI.' }),
  temporalRunId: z.string().nullable().meta({
    description:
      'The Temporal run id of the run (with workflowId, its execution in Temporal); null until the run has begun in Temporal. In the Web UI the run is also found by `SvcRunId` = its id.',
  }),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().nullable(),
  durationMs: z.number().int().nullable(),
  input: z.unknown(),
  output: z.unknown(),
  error: z.string().nullable(),
  steps: z.array(StepView),
});
export type RunView = z.infer<typeof RunView>;

/** A run of the list, with where Temporal's own Web UI shows it. */
export const ListedRun = RunView.extend({
  temporalUi: z
    .string()
    .nullable()
    .meta({ description: 'The run’s workflow in the Temporal Web UI; null when the service knows no UI (SVC_TEMPORAL_UI_URL).' }),
});
export type ListedRun = z.infer<typeof ListedRun>;

export const RunList = z.object({
  runs: z.array(ListedRun),
  lastEventSeq: z
    .number()
    .int()
    .meta({ description: 'The app’s newest run-progress sequence number when the list was read: watch with `after` it to follow on.' }),
});

export const RunListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.iso.datetime().optional().meta({ description: 'Runs started before this time (the next page).' }),
});

export const WatchQuery = z.strictObject({
  after: z.coerce.number().int().min(0).optional().meta({ description: 'Resume after this sequence number (or send Last-Event-ID).' }),
});

export const ExecuteRequest = z.strictObject({
  input: z.record(z.string(), z.unknown()).default({}),
  preview: z.boolean().default(false),
  channel: z.enum(['test', 'production']).optional(),
});

export const ExecuteResult = z.object({
  replayed: z.boolean().meta({ description: 'The Idempotency-Key named an earlier run: this is its result, not a new run.' }),
  run: RunView.nullable(),
  plan: z.object({ steps: z.array(z.object({ id: z.string(), kind: z.string(), lane: z.string().nullable() })) }).optional(),
  result: z
    .object({ data: z.array(z.record(z.string(), z.unknown())) })
    .optional()
    .meta({ description: 'An export (a query API) answers at once with its rows; it starts no run.' }),
});

export const CapabilityView = z.object({
  name: z.string(),
  source: z.enum(['platform', 'export']),
  app: z.string().nullable(),
  title: z.string(),
  description: z.string(),
  input: z.record(z.string(), z.object({ type: z.string(), required: z.boolean(), description: z.string().optional() })),
  runnable: z.boolean(),
  reason: z.string().optional(),
});
export const CapabilityCatalog = z.object({ namespace: z.string(), capabilities: z.array(CapabilityView) });

export const NotifyTestResult = z.object({
  to: z.string(),
  status: z.enum(['sent', 'recorded', 'failed']),
  emailConfigured: z.boolean(),
  error: z.string().optional(),
});
