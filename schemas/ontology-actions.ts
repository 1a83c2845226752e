// Wire shapes of action types, action runs, edits history and agent keys (issue 15, parts 3 and 4),
// after Foundry's public Ontologies v2 API. Pure zod: the SDK reuses them.
import { z } from 'zod';
import { dottedName, propertyName, rejectDuplicates } from './manifest/patterns.ts';
import { DataType, LinkApiName, ObjectTypeApiName, OntologyParams, PropertyApiName } from './ontology.ts';

export const ACTION_TYPE_RID_PREFIX = 'ri.ontology.svc.action-type.';

/** An action type's apiName: the manifest's dotted semantic action name (`semantic.actions`). */
export const ActionTypeApiName = dottedName.max(63).meta({ description: 'The dotted action name, e.g. `sales.approveOrder`.' });
export const ParameterName = propertyName;

/** A parameter is a property type or a reference (by primary key) to an object of one type. */
export const ObjectReferenceType = z.strictObject({ type: z.literal('objectReference'), objectType: ObjectTypeApiName });
export const ParameterDataType = z.union([DataType, ObjectReferenceType]);
export type ParameterDataType = z.infer<typeof ParameterDataType>;

export const ParameterDefinition = z.strictObject({
  dataType: ParameterDataType,
  /** Default true. */
  required: z.boolean().optional(),
  displayName: z.string().min(1).max(200).optional(),
  description: z.string().max(2000).optional(),
});
export type ParameterDefinition = z.infer<typeof ParameterDefinition>;

const JsonScalar = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);
export const CRITERION_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'isNull', 'startsWith', 'contains'] as const;

/**
 * A condition over the parameters and the objects they reference: `{parameter, op, value}`
 * compares a parameter's value, `{parameter, property, op, value}` a property of the object an
 * objectReference parameter names (as it is now, locked when the action executes); `all`, `any`
 * and `not` combine them. Declarative only, nested at most 3 levels.
 */
export type Criterion =
  | { parameter: string; property?: string; op: (typeof CRITERION_OPS)[number]; value?: unknown }
  | { all: Criterion[] }
  | { any: Criterion[] }
  | { not: Criterion };

const comparison = z.strictObject({
  parameter: ParameterName,
  property: PropertyApiName.optional(),
  op: z.enum(CRITERION_OPS),
  /** `in`: a list; `isNull`: true or false; otherwise a scalar. */
  value: z.union([JsonScalar, z.array(JsonScalar).max(100)]).optional(),
});
const criterionAt = (depth: number): z.ZodType<Criterion> =>
  depth === 0
    ? comparison
    : z.union([
        comparison,
        z.strictObject({
          all: z
            .array(z.lazy(() => criterionAt(depth - 1)))
            .min(1)
            .max(20),
        }),
        z.strictObject({
          any: z
            .array(z.lazy(() => criterionAt(depth - 1)))
            .min(1)
            .max(20),
        }),
        z.strictObject({ not: z.lazy(() => criterionAt(depth - 1)) }),
      ]);
export const CriterionSchema: z.ZodType<Criterion> = criterionAt(3);

export const SubmissionCriterion = z.strictObject({
  condition: CriterionSchema,
  /** Shown when the condition does not hold (Foundry configuredFailureMessage). */
  failureMessage: z.string().min(1).max(500).optional(),
});

/** Where an edit's value comes from: a parameter (its value, or for an objectReference the key) or a literal. */
export const ValueSource = z.union([
  z.strictObject({ parameter: ParameterName }),
  z.strictObject({ value: z.union([JsonScalar, z.array(z.unknown()).max(100), z.record(z.string(), z.unknown())]) }),
]);
export type ValueSource = z.infer<typeof ValueSource>;

const Assignments = z.record(PropertyApiName, ValueSource);

/** What an action does, written as templates over its parameters. */
export const EditTemplate = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('createObject'), objectType: ObjectTypeApiName, properties: Assignments }),
  /** `object`: an objectReference parameter. */
  z.strictObject({ type: z.literal('modifyObject'), object: ParameterName, properties: Assignments }),
  z.strictObject({ type: z.literal('deleteObject'), object: ParameterName }),
  /** `source`, `target`: the primary keys of the link's two sides. */
  z.strictObject({ type: z.literal('addLink'), linkType: LinkApiName, source: ValueSource, target: ValueSource }),
  z.strictObject({ type: z.literal('removeLink'), linkType: LinkApiName, source: ValueSource, target: ValueSource }),
]);
export type EditTemplate = z.infer<typeof EditTemplate>;

/** Ours: an outbound call to the company's source system before an action's edits commit (spec Events). */
export const WritebackWebhook = z
  .strictObject({
    connection: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,62}$/, 'must be a data connection name')
      .meta({ description: 'The name of an https data connection of the company (its URL and its sealed Authorization header).' }),
    timeoutMs: z.number().int().min(100).max(30_000).default(10_000),
  })
  .meta({
    description:
      'Each execution POSTs the action, its parameters and its edits to the connection before committing; a rejection (non-2xx), a timeout or a throttle (429, 503) ' +
      'makes the whole action have no effect (502 webhook_failed). Batch apply is refused for such an action.',
  });
export type WritebackWebhook = z.infer<typeof WritebackWebhook>;

export const ActionTypeDefinition = z.strictObject({
  apiName: ActionTypeApiName,
  displayName: z.string().min(1).max(200).optional(),
  description: z.string().max(2000).optional(),
  parameters: z.record(ParameterName, ParameterDefinition),
  submissionCriteria: z.array(SubmissionCriterion).max(20).default([]),
  edits: z.array(EditTemplate).min(1).max(50),
  writebackWebhook: WritebackWebhook.optional(),
});
export type ActionTypeDefinition = z.infer<typeof ActionTypeDefinition>;

/** `POST /api/v1/developer/semantic/{namespace}/actionTypes`: action types created or changed together, or not at all. */
export const DefineActionTypesRequest = z.strictObject({ actionTypes: z.array(ActionTypeDefinition).min(1).max(100) }).check(
  z.superRefine((r, ctx) =>
    rejectDuplicates(
      ctx,
      r.actionTypes,
      (a) => [a.apiName],
      (i) => ['actionTypes', i, 'apiName'],
      'action type',
    ),
  ),
);

export const DefineActionTypesResult = z.object({
  actionTypes: z.array(
    z.object({ apiName: z.string(), rid: z.string(), version: z.number().int(), change: z.enum(['created', 'changed', 'unchanged']) }),
  ),
});

/** Foundry ActionTypeV2, plus our submission criteria, edit templates and version. */
export const ActionType = z.object({
  rid: z.string(),
  apiName: z.string(),
  displayName: z.string(),
  description: z.string().optional(),
  status: z.literal('ACTIVE'),
  parameters: z.record(z.string(), ParameterDefinition.extend({ required: z.boolean() })),
  submissionCriteria: z.array(SubmissionCriterion),
  edits: z.array(EditTemplate),
  writebackWebhook: WritebackWebhook.optional(),
  version: z.number().int(),
});
export type ActionType = z.infer<typeof ActionType>;

export const ActionParams = OntologyParams.extend({ action: ActionTypeApiName });

const ActionParameters = z
  .record(ParameterName, z.unknown())
  .meta({ description: 'Parameter values by name; an objectReference is the primary key.' });
/** Ours: each objectReference parameter's object must be at this revision (`__rev`), else 409 rev_mismatch before any validation. */
const IfRev = z.record(ParameterName, z.number().int().min(0));

export const ApplyActionRequest = z.strictObject({
  parameters: ActionParameters,
  options: z
    .strictObject({
      mode: z.enum(['VALIDATE_ONLY', 'VALIDATE_AND_EXECUTE']).default('VALIDATE_AND_EXECUTE'),
      returnEdits: z.enum(['ALL', 'NONE']).default('NONE'),
    })
    .default({ mode: 'VALIDATE_AND_EXECUTE', returnEdits: 'NONE' }),
  ifRev: IfRev.optional(),
});

export const MAX_BATCH_ACTIONS = 20;
export const ApplyActionBatchRequest = z.strictObject({
  requests: z
    .array(z.strictObject({ parameters: ActionParameters, ifRev: IfRev.optional() }))
    .min(1)
    .max(MAX_BATCH_ACTIONS),
  options: z.strictObject({ returnEdits: z.enum(['ALL', 'NONE']).default('NONE') }).default({ returnEdits: 'NONE' }),
});

export const ValidationResult = z.enum(['VALID', 'INVALID']);
export const ActionValidation = z.object({
  result: ValidationResult,
  submissionCriteria: z.array(z.object({ configuredFailureMessage: z.string().optional(), result: ValidationResult })),
  parameters: z.record(
    z.string(),
    z.object({
      result: ValidationResult,
      required: z.boolean(),
      evaluatedConstraints: z.array(z.unknown()),
      /** Ours: why the value is not valid. */
      reason: z.string().optional(),
    }),
  ),
});
export type ActionValidation = z.infer<typeof ActionValidation>;

/** Foundry ActionResults `edits`: which objects and links changed (keys only, never contents). */
export const ActionEdits = z.object({
  type: z.literal('edits'),
  edits: z.array(
    z.union([
      z.object({ type: z.enum(['addObject', 'modifyObject', 'deleteObject']), objectType: z.string(), primaryKey: z.unknown() }),
      z.object({ type: z.enum(['addLink', 'deleteLink']), linkType: z.string(), source: z.unknown(), target: z.unknown() }),
    ]),
  ),
  addedObjectCount: z.number().int(),
  modifiedObjectsCount: z.number().int(),
  deletedObjectsCount: z.number().int(),
  addedLinksCount: z.number().int(),
  deletedLinksCount: z.number().int(),
});
export type ActionEdits = z.infer<typeof ActionEdits>;

export const ApplyActionResponse = z.object({
  validation: ActionValidation,
  /** Present when executed with returnEdits ALL. */
  edits: ActionEdits.optional(),
  /** Ours: the run's id, as the edits history and the app log record name it. Absent for VALIDATE_ONLY and INVALID. */
  operationId: z.string().optional(),
});

export const ApplyActionBatchResponse = z.object({ edits: ActionEdits.optional(), operationId: z.string() });

export const EditsHistoryRequest = z.strictObject({
  filters: z.strictObject({ primaryKey: z.union([z.string().max(1000), z.number()]).optional() }).optional(),
  pageSize: z.number().int().min(1).max(1000).default(100),
  pageToken: z.string().max(40).optional(),
});

export const EditsHistoryEntry = z.object({
  objectPrimaryKey: z.unknown(),
  operationId: z.string(),
  actionTypeRid: z.string().nullable(),
  userId: z.string().nullable(),
  timestamp: z.string(),
  edit: z.object({ type: z.enum(['createEdit', 'modifyEdit', 'deleteEdit']), before: z.unknown(), after: z.unknown() }),
});
export const EditsHistoryResponse = z.object({ data: z.array(EditsHistoryEntry), nextPageToken: z.string().optional() });

// Restricted agent keys (spec Authentication 7).
export const AGENT_OPERATIONS = ['api:use-ontologies-read', 'api:use-ontologies-write'] as const;
export const AgentId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/)
  .meta({ description: 'The agent the key is for (also the `x-author: agent:<id>` form).' });
export const AgentRestrictions = z.strictObject({
  /** No write operation: the key is read-only (runs no action). */
  operations: z.array(z.enum(AGENT_OPERATIONS)).max(2).default(['api:use-ontologies-read']),
  objectTypes: z.array(ObjectTypeApiName).max(100).default([]),
  actionTypes: z.array(ActionTypeApiName).max(100).default([]),
});
export type AgentRestrictions = z.infer<typeof AgentRestrictions>;

export const IssueAgentKeyRequest = z.strictObject({
  agentId: AgentId,
  clientName: z.string().min(1).max(100).optional(),
  // Reading is every agent key's base (an action reads its targets): a key is never issued without it.
  restrictions: AgentRestrictions.refine((r) => r.operations.includes('api:use-ontologies-read'), {
    path: ['operations'],
    message: 'must include api:use-ontologies-read: an agent key always reads its listed object types',
  }).default({ operations: ['api:use-ontologies-read'], objectTypes: [], actionTypes: [] }),
});

export const AgentKeySummary = z.object({
  keyId: z.string(),
  prefix: z.string(),
  agentId: z.string(),
  clientName: z.string(),
  restrictions: AgentRestrictions,
  issuedBy: z.object({ id: z.string(), username: z.string() }),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export const IssuedAgentKey = AgentKeySummary.extend({ key: z.string().meta({ description: 'Shown only here.' }) });

// Branches and proposals of a company's definitions (spec "Branches").
export const BranchName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/)
  .meta({ description: 'Lowercase letters, digits, `.`, `_` and `-`; at most 63 characters.' });
export const ProposalId = z.string().regex(/^prp_[0-9A-Za-z]{10,40}$/, 'must be a proposal id (prp_…)');
export const BranchQuery = z.strictObject({
  branch: BranchName.optional().meta({ description: 'Write to this branch instead of the main definition (agent authors must).' }),
});

export const Branch = z.object({
  name: z.string(),
  status: z.enum(['ACTIVE', 'INACTIVE', 'MERGED']),
  author: z.string(),
  lastActivityAt: z.string(),
  /** INACTIVE or MERGED: deleted 7 days after this. */
  inactiveSince: z.string().nullable(),
  createdAt: z.string(),
  /** The definition batches waiting on the branch, in order. */
  writes: z.array(
    z.object({ seq: z.number().int(), kind: z.enum(['objectTypes', 'actionTypes']), request: z.unknown(), createdAt: z.string() }),
  ),
});

export const BranchWriteResult = z.object({
  branch: z.string(),
  kind: z.enum(['objectTypes', 'actionTypes']),
  seq: z.number().int(),
  /** Checked against the main definition when a proposal of the branch is merged. */
  pendingWrites: z.number().int(),
});

export const Proposal = z.object({
  id: z.string(),
  branch: z.string(),
  title: z.string(),
  status: z.enum(['OPEN', 'APPROVED', 'REJECTED', 'MERGED']),
  createdBy: z.string().nullable(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  createdAt: z.string(),
});
