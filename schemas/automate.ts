import { z } from 'zod';
import { Slug } from './app-log.ts';
import { Aggregation, ObjectTypeApiName, PropertyApiName, Where } from './ontology.ts';
import { ActionTypeApiName } from './ontology-actions.ts';

// Automations (spec G: /api/v1/automate/automations/**; shapes ours, Foundry's Automate is not in
// its public API): a condition over a company's data or a clock, and effects run when it fires,
// as one Temporal workflow per automation.

export const AutomationId = z.string().regex(/^aut_[0-9A-Za-z]{10,40}$/, 'must be an automation id (aut_…)');

const Name = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,62}$/, 'must be 1-63 of a-z, 0-9 and -, starting with a letter')
  .meta({ description: 'Unique in the company.' });

export const CHANGE_KINDS = ['added', 'modified', 'removed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export const AutomationCondition = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('objectsChanged'),
      objectType: ObjectTypeApiName,
      changes: z
        .array(z.enum(CHANGE_KINDS))
        .min(1)
        .max(3)
        .default([...CHANGE_KINDS])
        .meta({ description: 'Which changes fire: added, modified, removed (default all three).' }),
      where: Where.optional().meta({
        description: 'The ontology’s where clause, over the object after the change (before it, for removed objects).',
      }),
    }),
    z.strictObject({
      type: z.literal('schedule'),
      cron: z
        .string()
        .regex(/^(\S+\s+){4}\S+$/, 'must be a five-field cron expression')
        .max(120)
        .meta({ description: 'A cron expression (UTC): a Temporal Schedule fires the automation.' }),
    }),
    z.strictObject({
      type: z.literal('threshold'),
      objectType: ObjectTypeApiName,
      where: Where.optional(),
      aggregation: Aggregation.meta({ description: 'One metric of the ontology’s aggregation over the objects the where clause selects.' }),
      operator: z.enum(['gt', 'gte', 'lt', 'lte']),
      value: z.number().finite(),
    }),
  ])
  .meta({
    id: 'AutomationCondition',
    description:
      'objectsChanged: objects of a type added, modified or removed that match `where`; schedule: a cron; ' +
      'threshold: an aggregate crossing a value (fires when it goes from not holding to holding, re-evaluated at each change of the type).',
  });
export type AutomationCondition = z.output<typeof AutomationCondition>;

const Scalar = z.union([z.string().max(10_000), z.number().finite(), z.boolean(), z.null()]);
export const ParameterSource = z
  .discriminatedUnion('from', [
    z.strictObject({ from: z.literal('property'), property: PropertyApiName }),
    z.strictObject({ from: z.literal('primaryKey') }),
    z.strictObject({ from: z.literal('value'), value: Scalar }),
  ])
  .meta({ description: 'A property of the changed object, its primary key, or a fixed value.' });
export type ParameterSource = z.output<typeof ParameterSource>;

const Template = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((v) => !v.includes('\u0000'), 'must not contain U+0000')
    .meta({ description: `Up to ${max} characters; {{property}} is replaced by the changed object’s value (cut to ${max} after).` });

export const AutomationEffect = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('action'),
      action: ActionTypeApiName,
      parameters: z
        .record(z.string().regex(/^[a-z][A-Za-z0-9_]{0,62}$/, 'must be a parameter name'), ParameterSource)
        .refine((p) => Object.keys(p).length <= 50, 'at most 50 parameters')
        .default({}),
    }),
    z.strictObject({
      type: z.literal('notify'),
      to: z.array(z.email().max(254)).min(1).max(50).meta({ description: 'Active accounts of the company; one message each.' }),
      subject: Template(250),
      body: Template(1000),
    }),
    z.strictObject({
      type: z.literal('appWorkflow').meta({ description: 'Starts the owning app’s production workflow (trigger `change`).' }),
    }),
  ])
  .meta({ id: 'AutomationEffect' });
export type AutomationEffect = z.output<typeof AutomationEffect>;

const Settings = {
  retries: z.number().int().min(0).max(10).meta({ description: 'Further attempts of a failing effect (backing off from 1 s).' }),
  cooldownSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .meta({ description: 'After a run starts effects, triggers within this many seconds are recorded as skipped (cooldown).' }),
  dailyCap: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .meta({ description: 'Runs that start effects per UTC day; later triggers that day are recorded as skipped (daily_cap).' }),
};

export const CreateAutomationInput = z.strictObject({
  name: Name,
  app: Slug.meta({ description: 'The owning app of the company: its compute quota and notification cap are what the automation spends.' }),
  condition: AutomationCondition,
  effects: z.array(AutomationEffect).min(1).max(10),
  enabled: z.boolean().default(true),
  retries: Settings.retries.default(3),
  cooldownSeconds: Settings.cooldownSeconds.default(0),
  dailyCap: Settings.dailyCap.default(100),
});
export type CreateAutomationInput = z.output<typeof CreateAutomationInput>;

export const UpdateAutomationInput = z
  .strictObject({
    condition: AutomationCondition.optional(),
    effects: z.array(AutomationEffect).min(1).max(10).optional(),
    retries: Settings.retries.optional(),
    cooldownSeconds: Settings.cooldownSeconds.optional(),
    dailyCap: Settings.dailyCap.optional(),
  })
  .meta({ description: 'The fields given replace the stored ones; the automation then acts as the developer who saved it.' });
export type UpdateAutomationInput = z.output<typeof UpdateAutomationInput>;

export const AutomationView = z
  .object({
    id: AutomationId,
    name: z.string(),
    app: z.string(),
    enabled: z.boolean(),
    condition: AutomationCondition,
    effects: z.array(AutomationEffect),
    retries: z.number().int(),
    cooldownSeconds: z.number().int(),
    dailyCap: z.number().int(),
    owner: z.string().nullable().meta({ description: 'The username the automation acts as (who last saved it).' }),
    workflowId: z.string().meta({ description: 'The automation’s Temporal workflow (open it in the Temporal UI).' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Automation' });
export type AutomationView = z.infer<typeof AutomationView>;

export const AutomationTrigger = z.object({
  kind: z.enum(['change', 'schedule', 'threshold']),
  at: z.string(),
  objectType: z.string().optional(),
  primaryKey: z.union([z.string(), z.number()]).optional(),
  change: z.enum(CHANGE_KINDS).optional(),
  seq: z.number().int().optional(),
  value: z.number().nullable().optional().meta({ description: 'threshold: the aggregate’s value.' }),
});
export type AutomationTrigger = z.infer<typeof AutomationTrigger>;

export const EffectOutcome = z.object({
  index: z.number().int(),
  type: z.enum(['action', 'notify', 'appWorkflow']),
  status: z.enum(['SUCCEEDED', 'FAILED']),
  attempts: z.number().int(),
  output: z.unknown().optional(),
  error: z.string().optional(),
});
export type EffectOutcome = z.infer<typeof EffectOutcome>;

export const AutomationRunView = z
  .object({
    id: z.string(),
    trigger: AutomationTrigger,
    status: z.enum(['RUNNING', 'SUCCEEDED', 'FAILED', 'SKIPPED']),
    skipReason: z
      .enum(['cooldown', 'daily_cap', 'quota_exhausted', 'disabled'])
      .nullable()
      .meta({ description: 'Why a SKIPPED run started no effect.' }),
    effects: z.array(EffectOutcome),
    error: z.string().nullable(),
    workflowId: z.string(),
    temporalRunId: z.string(),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'AutomationRun' });
export type AutomationRunView = z.infer<typeof AutomationRunView>;

export const AutomationDryRun = z.object({
  fires: z.boolean().meta({ description: 'Whether the condition holds on current data (schedule: whether it is enabled).' }),
  condition: z.object({
    matching: z.number().int().optional().meta({ description: 'objectsChanged: how many current objects match the where clause.' }),
    sample: z.array(z.unknown()).optional().meta({ description: 'objectsChanged: up to 5 of them (first by primary key).' }),
    value: z.number().nullable().optional().meta({ description: 'threshold: the aggregate’s current value.' }),
  }),
  effects: z.array(
    z.object({
      index: z.number().int(),
      type: z.enum(['action', 'notify', 'appWorkflow']),
      wouldRun: z.boolean(),
      detail: z
        .unknown()
        .meta({ description: 'action: the parameters and the action’s validation; notify: recipients, subject and body.' }),
    }),
  ),
  blockedBy: z.array(z.enum(['disabled', 'cooldown', 'daily_cap', 'quota_exhausted'])),
});
export type AutomationDryRun = z.infer<typeof AutomationDryRun>;

/** What an automation's workflow is handed: a committed change range of the data layer (relayed from the outbox), or a schedule's firing. */
export type AutomationTick = { kind: 'change'; fromSeq: number; toSeq: number } | { kind: 'schedule'; at: string };
