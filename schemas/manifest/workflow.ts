// `workflow`: a flow of steps run on a trigger. The spec fixes only the facts below; the rest
// is documented in docs/app-developers/workflows.md.
//   - step kinds: use (call a capability), compute (per-row, join, summarize), model (AI
//     analysis returning declared fields), notify (email to accounts listed here)
//   - every step may have `when` (expression) and `lane`
//   - expressions are strings starting with `=`; a step may read earlier steps as `steps.<id>`
//   - trigger.change (with cooldown), trigger.schedule (`every` 5m..7d, daily `at` HH:MM UTC)
//   - notify: de-duplication key, cooldown (default 6h), daily cap
import { z } from 'zod';
import { duration, durationSeconds } from './duration.ts';
import { inputParameter, valueType } from './exports.ts';
import { LIMIT_MAXIMUMS } from './limits.ts';
import { boundedRecord, custom, dottedName, identifier, propertyName, rejectDuplicates, scalarOrList } from './patterns.ts';

export const EXPRESSION_PREFIX = '=';
const expression = z.string().min(2).max(2000).startsWith(EXPRESSION_PREFIX, 'must be an expression starting with =');
/** Literal text, or an expression when it starts with `=`. */
const textOrExpression = (max: number) => z.string().min(1).max(max);

const common = {
  id: identifier,
  when: expression.optional(),
  lane: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,31}$/)
    .optional(),
};

const useStep = z.strictObject({
  ...common,
  kind: z.literal('use'),
  capability: dottedName,
  input: boundedRecord(identifier, scalarOrList, 0, 40).default({}),
});

const perRowStep = z.strictObject({
  ...common,
  kind: z.literal('compute'),
  op: z.literal('per-row'),
  from: expression,
  fields: boundedRecord(identifier, expression, 1, 40),
});

const joinStep = z.strictObject({
  ...common,
  kind: z.literal('compute'),
  op: z.literal('join'),
  left: expression,
  right: expression,
  on: z.strictObject({ left: propertyName, right: propertyName }),
  type: z.enum(['inner', 'left']).default('inner'),
});

const measure = z.strictObject({ fn: z.enum(['count', 'sum', 'avg', 'min', 'max']), of: propertyName.optional() }).superRefine((m, ctx) => {
  if (m.fn !== 'count' && m.of === undefined) custom(ctx, 'measure_of_missing', `${m.fn} needs "of"`, ['of']);
});

const summarizeStep = z.strictObject({
  ...common,
  kind: z.literal('compute'),
  op: z.literal('summarize'),
  from: expression,
  groupBy: z.array(propertyName).max(8).default([]),
  measures: boundedRecord(identifier, measure, 1, 24),
});

const modelStep = z.strictObject({
  ...common,
  kind: z.literal('model'),
  model: z.string().min(1).max(64).optional(),
  prompt: z.string().min(1).max(4000),
  input: expression,
  fields: boundedRecord(identifier, z.strictObject({ type: valueType, description: z.string().max(300).optional() }), 1, 24),
});

const notifyStep = z
  .strictObject({
    ...common,
    kind: z.literal('notify'),
    to: z.array(z.email()).min(1).max(20),
    subject: textOrExpression(250),
    body: textOrExpression(1000),
    dedupeKey: textOrExpression(200),
    cooldown: duration('1m', '7d').default('6h'),
    // This step's own share of a UTC day; the app's one cap, notificationsPerDay, applies anyway.
    dailyCap: z.number().int().min(1).max(LIMIT_MAXIMUMS.notificationsPerDay).optional(),
  })
  .superRefine((step, ctx) =>
    rejectDuplicates(
      ctx,
      step.to,
      (email) => [email.toLowerCase()],
      (i) => ['to', i],
      'recipient',
    ),
  );

const step = z.discriminatedUnion('kind', [
  useStep,
  z.discriminatedUnion('op', [perRowStep, joinStep, summarizeStep]),
  modelStep,
  notifyStep,
]);

const DAY_SECONDS = 86400;

const schedule = z
  .strictObject({
    every: duration('5m', '7d'),
    at: z
      .string()
      .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'must be a UTC time HH:MM')
      .optional(),
  })
  .superRefine((s, ctx) => {
    if (s.at !== undefined && durationSeconds(s.every) !== DAY_SECONDS)
      custom(ctx, 'schedule_at_not_daily', '"at" is only allowed with every: 1d', ['at']);
  });

const trigger = z.strictObject({
  change: z.strictObject({ types: z.array(dottedName).min(1).max(24), cooldown: duration('1m', '7d').default('5m') }).optional(),
  schedule: schedule.optional(),
});

export type WorkflowStep = z.output<typeof step>;

function expressionsOf(value: unknown): string[] {
  if (typeof value === 'string') return value.startsWith(EXPRESSION_PREFIX) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(expressionsOf);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(expressionsOf);
  return [];
}

// A step may only read steps that ran before it (`steps.<id>`); anything else is a typo or a cycle.
function checkStepReferences(steps: readonly WorkflowStep[], ctx: z.core.$RefinementCtx): void {
  const earlier = new Set<string>();
  steps.forEach((s, index) => {
    const referenced = new Set(
      expressionsOf(s).flatMap((text) => [...text.matchAll(/\bsteps\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] ?? '')),
    );
    for (const id of referenced) {
      if (!earlier.has(id)) custom(ctx, 'step_reference', `"steps.${id}" is not an earlier step`, ['steps', index]);
    }
    earlier.add(s.id);
  });
}

export const workflowSchema = z
  .strictObject({
    // The workflow is also the app's API `run` (GET .../apis, POST .../apis/run/execute): its
    // description and input parameters (read by steps as `input.<name>`).
    description: z.string().max(400).default(''),
    input: boundedRecord(identifier, inputParameter, 0, 40).default({}),
    trigger: trigger.optional(),
    steps: z.array(step).min(1).max(40),
  })
  .superRefine((workflow, ctx) => {
    rejectDuplicates(
      ctx,
      workflow.steps,
      (s) => [s.id],
      (i) => ['steps', i, 'id'],
      'step id',
    );
    checkStepReferences(workflow.steps, ctx);
  });

export type Workflow = z.output<typeof workflowSchema>;
