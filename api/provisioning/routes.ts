import { z } from 'zod';
import {
  awaitRunStart,
  getProvisioningStatus,
  initializeCompany,
  listProvisionedCompanies,
  type QueuedRun,
  replaceCloudInstance,
  requestProvisioning,
} from '../../domain/provisioning/index.ts';
import { CellId } from '../../schemas/identity.ts';
import { CloudInstanceRequest, InitializeCompanyRequest, ProvisioningPartRequest } from '../../schemas/provisioning.ts';
import type { ApiDeps } from '../deps.ts';
import { defineRoute, type HandlerInput } from '../http/route.ts';

// Spec F, the control plane (operators only). A start goes through the outbox: the request row
// and its intent commit together, so a crash after the commit still starts the run. The answer
// then waits (SVC_RUN_START_WAIT_MS, 10 s) for the relay to report the run Temporal started or joined, and gives
// its run id; when no worker delivers in time, runId is null and the run starts once one does.

const BASE = '/api/v1/control-plane/companies';
const CellParams = z.object({ cell: CellId });

const Change = z.object({
  item: z.string(),
  outcome: z.enum(['created', 'reused', 'refreshed', 'moved']),
  note: z.string().optional().describe('What else the change did, e.g. where a hand-edited description was kept.'),
});
const ParameterChange = z.object({ field: z.string(), stored: z.string(), requested: z.string() });
const PlannedStep = z
  .object({
    step: z.enum(['move', 'cloud-instance', 'folders', 'agent-profiles']),
    target: z.string(),
    action: z.enum(['create', 'reuse', 'move', 'refresh', 'blocked']),
    path: z.string().optional(),
    from: z.string().optional().describe('Where a moved folder or profile is now.'),
    reason: z.string().optional().describe('Why the run would stop at a blocked target.'),
  })
  .meta({ id: 'ProvisioningPlannedStep' });
const Step = z.object({
  name: z.string(),
  status: z.enum(['running', 'retrying', 'completed', 'failed']),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  changes: z.array(Change),
  at: z.string(),
});

const Accepted = z
  .object({
    requestId: z.string(),
    workflowId: z.string(),
    runId: z.string().nullable().describe('Null when no worker started the run in time; it starts once one runs.'),
    part: z.enum(['all', 'cloud-instance', 'folders', 'agent-profiles']),
    steps: z.array(z.string()),
    statusUrl: z.string(),
  })
  .meta({ id: 'ProvisioningAccepted' });

const InitializeAccepted = Accepted.extend({
  company: z.object({ cellId: z.string(), outcome: z.enum(['created', 'reused']) }),
  record: z.enum(['created', 'updated', 'unchanged']),
  changes: z.array(ParameterChange).describe('Parameters this call changed (names; companyKey and rootPath only with apply "move").'),
  plan: z.array(PlannedStep).describe('What the run will do per instance, folder and profile, as seen now.'),
}).meta({ id: 'InitializationAccepted' });

const ProvisioningStatus = z
  .object({
    cellId: z.string(),
    status: z.enum(['not_started', 'queued', 'running', 'completed', 'failed']),
    currentStep: z.string().nullable(),
    failingStep: z.object({ name: z.string(), attempts: z.number().int(), lastError: z.string().nullable() }).nullable(),
    company: z
      .object({
        companyKey: z.string(),
        nameEn: z.string(),
        nameZh: z.string(),
        rootPath: z.string(),
        cloud: z.object({ profile: z.string(), accountId: z.string(), region: z.string(), instanceName: z.string() }),
        pendingMove: z
          .object({ fromRoot: z.string(), toRoot: z.string(), fromKey: z.string(), toKey: z.string() })
          .nullable()
          .describe('A move asked for with apply "move" that no run has carried out yet.'),
      })
      .nullable(),
    server: z
      .object({
        provider: z.enum(['aws', 'local']),
        instanceId: z.string(),
        state: z.string(),
        address: z.string().nullable(),
        securityGroups: z.array(z.object({ id: z.string(), name: z.string() })),
        syncedAt: z.string().nullable(),
        generation: z.number().int().describe('Client-token generation: 0 for the first instance, counted up by each replacement.'),
        replaced: z
          .array(z.object({ instanceId: z.string(), state: z.string(), replacedAt: z.string(), generation: z.number().int() }))
          .describe('Instances replaced so far, oldest first.'),
        remedy: z.string().nullable().describe('What to do when the instance is dead or stopped; null when nothing is needed.'),
      })
      .nullable(),
    folders: z.array(z.object({ name: z.string(), path: z.string(), updatedAt: z.string() })),
    agentProfiles: z.array(
      z.object({
        name: z.string(),
        role: z.string(),
        rid: z.string(),
        folderPath: z.string(),
        profilePath: z.string(),
        descriptionPath: z.string(),
        descriptionSha256: z.string(),
        updatedAt: z.string(),
      }),
    ),
    queued: z.array(z.object({ requestId: z.string(), part: z.string(), workflowId: z.string(), requestedAt: z.string() })),
    runs: z.array(
      z.object({
        workflowId: z.string(),
        runId: z.string(),
        part: z.string(),
        status: z.enum(['running', 'completed', 'failed']),
        currentStep: z.string().nullable(),
        steps: z.array(Step),
        error: z.string().nullable(),
        startedAt: z.string(),
        finishedAt: z.string().nullable(),
      }),
    ),
    drift: z
      .object({
        checked: z.boolean().describe('False when the root could not be looked at (refused by the root policy).'),
        count: z.number().int(),
        entries: z.array(
          z.object({
            kind: z.enum(['missing', 'changed', 'unexpected']),
            target: z.enum(['root', 'folder', 'profile', 'description', 'entry', 'instance']),
            name: z.string(),
            path: z.string().describe('Empty for an instance.'),
            detail: z
              .string()
              .optional()
              .describe('How an instance differs from the record, e.g. "recorded running, the provider says terminated".'),
          }),
        ),
        instance: z
          .object({
            checked: z.boolean().describe('False when the provider could not be asked (see error).'),
            state: z.string().nullable().describe('The state the provider reports for the recorded instance.'),
            error: z.string().nullable(),
          })
          .nullable()
          .describe(
            'The recorded instance against the provider; null without an instance on record, or while its replacement waits for its run.',
          ),
      })
      .nullable()
      .describe(
        'The disk against the record: missing folders, profiles and description files, descriptions whose SHA-256 differs from the ' +
          'recorded one (edited by hand), and entries in the root or agents/ that no step made (at most 50 per folder); the instance ' +
          'against the provider: missing (unknown to it), changed (state or address), unexpected (another instance with the company tag). ' +
          'Null before the first initialize.',
      ),
  })
  .meta({ id: 'ProvisioningStatus' });

const statusUrl = (deps: ApiDeps, cellId: string) => `${deps.addresses().baseUrl}${BASE}/${cellId}/provisioning-status`;

/**
 * The 202 answer for a queued run. Its run id is filled in after the commit (the relay can only
 * see the committed intent); a dry run is rolled back and answers the plan without one.
 */
function accepted<E extends object>(
  queued: QueuedRun,
  extra: E,
  { deps, afterCommit }: Pick<HandlerInput<unknown, unknown, unknown>, 'deps' | 'afterCommit'>,
) {
  const data = {
    requestId: queued.requestId,
    workflowId: queued.workflowId,
    runId: null as string | null,
    part: queued.part,
    steps: [...queued.steps],
    statusUrl: statusUrl(deps, queued.cellId),
    ...extra,
  };
  afterCommit(async () => {
    data.runId = await awaitRunStart(deps.db, queued.requestId, deps.http.runStartWaitMs);
  });
  const { requestId: _requestId, runId: _runId, ...plan } = data;
  return { status: 202, data, plan: { wouldStartOrJoin: plan } };
}

export const initializeCompanyRoute = defineRoute({
  method: 'post',
  path: `${BASE}/initialize`,
  operationId: 'controlPlaneInitializeCompany',
  summary: 'Initialize a company: company, server instance, ten folders, ten agent profiles (operators; rerunnable)',
  description:
    'Creates or reuses the company and starts or joins its provisioning run (workflow company-init:<cellId>). ' +
    'Rerunning changes nothing that exists; provisioning-status says per step what was created, reused or refreshed. ' +
    'Credentials, keys, tokens and connection strings are refused anywhere in the body. rootPath must lie under the ' +
    "company root (SVC_COMPANY_ROOT) once symlinks are resolved, and never in /proc, /sys, /dev or the service's data " +
    'directories (invalid_payload, problem path_not_allowed at rootPath). A companyKey, rootPath or cloud target that differs from the ' +
    'stored one is refused with 409 conflict and details.changes ([{field, stored, requested}]) unless apply is "move" (companyKey and ' +
    'rootPath: the run first moves the tree and renames the profiles, exactly once); while a run of the company goes, other parameters ' +
    'are refused with details.running. The dry run answers the same diff and the plan per instance, folder and profile.',
  tags: ['control-plane'],
  auth: 'credential',
  write: true,
  body: InitializeCompanyRequest,
  response: { status: 202, description: 'The run was started or joined.', schema: InitializeAccepted },
  errors: ['unauthorized', 'forbidden', 'invalid_payload', 'conflict'],
  async handler({ db, body, principal, deps, afterCommit }) {
    const queued = await initializeCompany(db, { ...body, accountId: principal.account.id }, deps);
    const { company, record, changes, plan } = queued;
    return accepted(queued, { company, record, changes, plan }, { deps, afterCommit });
  },
});

const partDescription = (part: string) =>
  `Starts or joins the run company-init:<cellId>:${part}, with the same idempotency as initialize. ` +
  'The part uses the stored initialization; a body that is not JSON, or any field not listed, is refused and starts nothing.';

function partRoute(part: 'folders' | 'agent-profiles', operationId: string, summary: string) {
  return defineRoute({
    method: 'post',
    path: `${BASE}/{cell}/${part}`,
    operationId,
    summary,
    description: `${partDescription(part)} Send no body or {}.`,
    tags: ['control-plane'],
    auth: 'credential',
    write: true,
    params: CellParams,
    body: ProvisioningPartRequest,
    response: { status: 202, description: 'The run was started or joined.', schema: Accepted },
    errors: ['unauthorized', 'forbidden', 'invalid_path', 'organization_not_found', 'conflict'],
    async handler({ db, params, principal, deps, afterCommit }) {
      const queued = await requestProvisioning(db, { cellId: params.cell, part, accountId: principal.account.id });
      return accepted(queued, {}, { deps, afterCommit });
    },
  });
}

export const cloudInstanceRoute = defineRoute({
  method: 'post',
  path: `${BASE}/{cell}/cloud-instance`,
  operationId: 'controlPlaneCloudInstance',
  summary: 'Create or reuse the server instance and sync its metadata; replace a dead one (operators)',
  description:
    `${partDescription('cloud-instance')} ` +
    'With {"replace": true} a terminated (or shutting-down) instance, as recorded or as the provider reports it (or one the provider no ' +
    'longer knows), is replaced: its id is kept in server.replaced and the run creates ' +
    'a new instance under the next client-token generation. A second replace while that one is still to be made joins it; replacing an ' +
    'instance that is not dead is refused (409 conflict with its state and the remedy).',
  tags: ['control-plane'],
  auth: 'credential',
  write: true,
  params: CellParams,
  body: CloudInstanceRequest,
  response: {
    status: 202,
    description: 'The run was started or joined.',
    schema: Accepted.extend({
      replacing: z.string().nullable().describe('The id of the instance being replaced; null without replace.'),
    }).meta({
      id: 'CloudInstanceAccepted',
    }),
  },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'organization_not_found', 'conflict'],
  async handler({ db, params, body, principal, deps, afterCommit }) {
    const input = { cellId: params.cell, accountId: principal.account.id };
    if (!body?.replace)
      return accepted(await requestProvisioning(db, { ...input, part: 'cloud-instance' }), { replacing: null }, { deps, afterCommit });
    const queued = await replaceCloudInstance(db, input, deps.liveRuns, deps.cloud);
    return accepted(queued, { replacing: queued.replacing }, { deps, afterCommit });
  },
});

export const getProvisioningStatusRoute = defineRoute({
  method: 'get',
  path: `${BASE}/{cell}/provisioning-status`,
  operationId: 'controlPlaneProvisioningStatus',
  summary: 'Provisioning status: overall, current step, failing step, server, folders, agent profiles, runs (operators)',
  tags: ['control-plane'],
  auth: 'credential',
  params: CellParams,
  snapshot: true,
  response: { status: 200, description: 'The stored record combined with the live runs.', schema: ProvisioningStatus },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'organization_not_found'],
  handler: async ({ db, deps, params }) => ({
    data: await getProvisioningStatus(db, deps.liveRuns, params.cell, deps.companyRoot, deps.cloud),
  }),
});

export const listCompaniesRoute = defineRoute({
  method: 'get',
  path: BASE,
  operationId: 'controlPlaneListCompanies',
  summary: 'Every company with its provisioning state, last run, instance state and drift count, by cell id (operators)',
  tags: ['control-plane'],
  auth: 'credential',
  query: z.strictObject({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    after: CellId.optional().meta({ description: 'Continue after this cell id (the previous page’s `next`).' }),
  }),
  response: {
    status: 200,
    description: 'One page of companies.',
    schema: z
      .object({
        companies: z.array(
          z.object({
            cellId: z.string(),
            name: z.string(),
            companyKey: z.string().nullable(),
            status: ProvisioningStatus.shape.status,
            lastRun: z
              .object({
                workflowId: z.string(),
                runId: z.string(),
                part: z.string(),
                status: z.enum(['running', 'completed', 'failed']),
                startedAt: z.string(),
                finishedAt: z.string().nullable(),
                error: z.string().nullable(),
              })
              .nullable(),
            instance: z.object({ instanceId: z.string(), state: z.string(), remedy: z.string().nullable() }).nullable(),
            driftCount: z.number().int().nullable().describe('Entries of provisioning-status drift; null before the first initialize.'),
            pendingMove: z.boolean(),
          }),
        ),
        next: z.string().nullable(),
      })
      .meta({ id: 'ControlPlaneCompanies' }),
  },
  errors: ['unauthorized', 'forbidden', 'invalid_payload'],
  handler: async ({ db, deps, query }) => ({ data: await listProvisionedCompanies(db, deps, query) }),
});

export const controlPlaneRoutes = [
  listCompaniesRoute,
  initializeCompanyRoute,
  cloudInstanceRoute,
  partRoute('folders', 'controlPlaneFolders', 'Create the ten folders (operators)'),
  partRoute(
    'agent-profiles',
    'controlPlaneAgentProfiles',
    'Create or refresh the ten agent profiles and their description files (operators)',
  ),
  getProvisioningStatusRoute,
];
