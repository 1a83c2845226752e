import { z } from 'zod';
import {
  createAutomation,
  deleteAutomation,
  dryRunAutomation,
  getAutomation,
  listAutomationRuns,
  listAutomations,
  setAutomationEnabled,
  updateAutomation,
} from '../../domain/automate/index.ts';
import { Namespace } from '../../schemas/app-log.ts';
import {
  AutomationDryRun,
  AutomationId,
  AutomationRunView,
  AutomationView,
  CreateAutomationInput,
  UpdateAutomationInput,
} from '../../schemas/automate.ts';
import { defineRoute } from '../http/route.ts';

// Automations (spec G, `/api/v1/automate/automations/**`; shapes ours): a company's developers
// define a condition (objects changed matching a where clause, a cron, an aggregate crossing a
// value) and effects (an action, a notification, the owning app's workflow); each enabled
// automation is one Temporal workflow, whose id every answer carries.
const ERRORS = ['unauthorized', 'forbidden', 'invalid_path', 'organization_not_found'] as const;
const Ns = z.object({ namespace: Namespace });
const AutomationParams = Ns.extend({ automationId: AutomationId });
const DEFINITION_ERRORS = ['invalid_payload', 'object_type_not_found', 'action_type_not_found', 'query_invalid'] as const;
const BASE = '/api/v1/automate/automations/{namespace}';
const ONE = `${BASE}/{automationId}`;

export const createAutomationRoute = defineRoute({
  method: 'post',
  path: BASE,
  operationId: 'createAutomation',
  summary: 'Create an automation: a condition and the effects it runs (one Temporal workflow while enabled)',
  description:
    'The condition’s object type, where clause and aggregation are checked against the ontology (query_invalid), the actions must exist ' +
    'and be runnable by the caller, who becomes the owner the automation acts as. `app` names the owning app: its compute quota stops ' +
    'runs when used up (recorded as skipped, quota_exhausted) and its notificationsPerDay caps notifications.',
  tags: ['automate'],
  auth: 'credential',
  write: true,
  params: Ns,
  body: CreateAutomationInput,
  response: { status: 201, description: 'The automation.', schema: AutomationView },
  errors: [...ERRORS, ...DEFINITION_ERRORS, 'app_not_found', 'automation_name_exists'],
  handler: async ({ db, deps, principal, params, body }) => ({
    data: await createAutomation({ db, clock: deps.clock }, principal, params.namespace, body),
  }),
});

export const listAutomationsRoute = defineRoute({
  method: 'get',
  path: BASE,
  operationId: 'listAutomations',
  summary: 'The company’s automations by name',
  tags: ['automate'],
  auth: 'credential',
  params: Ns,
  response: { status: 200, description: 'Automations.', schema: z.object({ data: z.array(AutomationView) }) },
  errors: [...ERRORS],
  handler: async ({ db, principal, params }) => ({ data: { data: await listAutomations(db, principal, params.namespace) } }),
});

export const getAutomationRoute = defineRoute({
  method: 'get',
  path: ONE,
  operationId: 'getAutomation',
  summary: 'One automation',
  tags: ['automate'],
  auth: 'credential',
  params: AutomationParams,
  response: { status: 200, description: 'The automation.', schema: AutomationView },
  errors: [...ERRORS, 'automation_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await getAutomation(db, principal, params.namespace, params.automationId) }),
});

export const updateAutomationRoute = defineRoute({
  method: 'patch',
  path: ONE,
  operationId: 'updateAutomation',
  summary: 'Change an automation’s condition, effects, retries, cooldown or daily cap (the caller becomes its owner)',
  tags: ['automate'],
  auth: 'credential',
  write: true,
  params: AutomationParams,
  body: UpdateAutomationInput,
  response: { status: 200, description: 'The automation.', schema: AutomationView },
  errors: [...ERRORS, ...DEFINITION_ERRORS, 'automation_not_found'],
  handler: async ({ db, deps, principal, params, body }) => ({
    data: await updateAutomation({ db, clock: deps.clock }, principal, params.namespace, params.automationId, body),
  }),
});

export const deleteAutomationRoute = defineRoute({
  method: 'delete',
  path: ONE,
  operationId: 'deleteAutomation',
  summary: 'Delete an automation and its run history (its workflow and schedule end)',
  tags: ['automate'],
  auth: 'credential',
  write: true,
  params: AutomationParams,
  response: { status: 200, description: 'Deleted.', schema: z.object({ deleted: z.literal(true) }) },
  errors: [...ERRORS, 'automation_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await deleteAutomation(db, principal, params.namespace, params.automationId) }),
});

const toggle = (enabled: boolean) =>
  defineRoute({
    method: 'post',
    path: `${ONE}/${enabled ? 'enable' : 'disable'}`,
    operationId: enabled ? 'enableAutomation' : 'disableAutomation',
    summary: enabled
      ? 'Enable an automation: its workflow (and schedule) start; it fires for changes from now on'
      : 'Disable an automation: its workflow and schedule end; changes meanwhile never fire it',
    tags: ['automate'],
    auth: 'credential',
    write: true,
    params: AutomationParams,
    response: { status: 200, description: 'The automation.', schema: AutomationView },
    errors: [...ERRORS, 'automation_not_found'],
    handler: async ({ db, deps, principal, params }) => ({
      data: await setAutomationEnabled({ db, clock: deps.clock }, principal, params.namespace, params.automationId, enabled),
    }),
  });

export const enableAutomationRoute = toggle(true);
export const disableAutomationRoute = toggle(false);

export const dryRunAutomationRoute = defineRoute({
  method: 'post',
  path: `${ONE}/dryRun`,
  operationId: 'dryRunAutomation',
  summary: 'Evaluate the condition against current data and say which effects would run; nothing is changed, no run recorded',
  description:
    'objectsChanged: how many current objects match the where clause (as if each had just changed), a sample, and each effect with the ' +
    'first one’s values (an action validated as the caller, VALIDATE_ONLY); threshold: the aggregate’s value and whether it holds; ' +
    '`blockedBy` names what would stop a run now (disabled, cooldown, daily_cap, quota_exhausted).',
  tags: ['automate'],
  auth: 'credential',
  params: AutomationParams,
  response: { status: 200, description: 'What the automation would do now.', schema: AutomationDryRun },
  errors: [...ERRORS, 'automation_not_found', 'object_type_not_found', 'action_type_not_found', 'query_invalid', 'action_invalid'],
  handler: async ({ db, deps, principal, params }) => ({
    data: await dryRunAutomation({ db, clock: deps.clock }, principal, params.namespace, params.automationId),
  }),
});

export const listAutomationRunsRoute = defineRoute({
  method: 'get',
  path: `${ONE}/runs`,
  operationId: 'listAutomationRuns',
  summary: 'The automation’s latest runs, newest first: trigger, effects, status, error, Temporal workflow and run id',
  description:
    'Every trigger is a run; one that started no effect is SKIPPED with its reason (cooldown, daily_cap, quota_exhausted, disabled).',
  tags: ['automate'],
  auth: 'credential',
  params: AutomationParams,
  query: z.strictObject({ pageSize: z.coerce.number().int().min(1).max(100).default(20) }),
  response: { status: 200, description: 'Runs.', schema: z.object({ data: z.array(AutomationRunView) }) },
  errors: [...ERRORS, 'automation_not_found'],
  handler: async ({ db, principal, params, query }) => ({
    data: { data: await listAutomationRuns(db, principal, params.namespace, params.automationId, query.pageSize) },
  }),
});

export const automateRoutes = [
  createAutomationRoute,
  listAutomationsRoute,
  getAutomationRoute,
  updateAutomationRoute,
  deleteAutomationRoute,
  enableAutomationRoute,
  disableAutomationRoute,
  dryRunAutomationRoute,
  listAutomationRunsRoute,
];
