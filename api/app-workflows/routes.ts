import { z } from 'zod';
import { runApi } from '../../domain/app-surface/index.ts';
import {
  appOfCaller,
  awaitRunResult,
  deliverPending,
  executeWorkflowApi,
  listCapabilities,
  listRuns,
  recordTestNotification,
  testNotificationOutcome,
  WORKFLOW_API_NAME,
} from '../../domain/app-workflows/index.ts';
import { reachApp, targetOf } from '../../domain/apps/index.ts';
import { ROUTE_ACCESS } from '../../domain/policy/index.ts';
import {
  CapabilityCatalog,
  ExecuteRequest,
  ExecuteResult,
  NotifyTestResult,
  RunList,
  RunListQuery,
  WatchQuery,
} from '../../schemas/app-workflows.ts';
import { AppParams } from '../../schemas/apps.ts';
import { NAMESPACE_PATTERN, WORKFLOW_SCHEMA_PATH, workflowJsonSchema } from '../../schemas/manifest/index.ts';
import { SSE_HEADERS } from '../http/event-stream.ts';
import { defineRoute } from '../http/route.ts';
import { watchRuns } from './watch-stream.ts';

const APP = '/api/v1/developer/apps/{namespace}/{slug}';

export const workflowSchemaRoute = defineRoute({
  method: 'get',
  path: WORKFLOW_SCHEMA_PATH,
  operationId: 'getWorkflowSchema',
  summary: 'The manifest `workflow` object’s JSON Schema (draft 2020-12), beside the manifest’s',
  tags: ['workflows'],
  auth: 'none',
  envelope: false,
  response: { status: 200, description: 'The JSON Schema (not wrapped in the envelope).', schema: z.record(z.string(), z.unknown()) },
  async handler({ deps }) {
    return { data: workflowJsonSchema(`${deps.addresses().baseUrl}${WORKFLOW_SCHEMA_PATH}`) };
  },
});

export const listRunsRoute = defineRoute({
  method: 'get',
  path: `${APP}/workflow-runs`,
  operationId: 'listWorkflowRuns',
  summary:
    'The app’s workflow runs, newest first: trigger, status, duration, each step’s status, duration and output, the Temporal workflow id and its Temporal Web UI address',
  tags: ['workflows'],
  auth: 'credential',
  params: AppParams,
  query: RunListQuery,
  response: { status: 200, description: 'The runs.', schema: RunList },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'invalid_payload', 'app_not_found'],
  handler: async ({ db, deps, principal, params, query }) => ({
    data: await listRuns({ db, clock: deps.clock, temporalUi: deps.temporalUi }, principal, params, query),
  }),
});

export const watchRunsRoute = defineRoute({
  method: 'get',
  path: `${APP}/workflow-runs/watch`,
  operationId: 'watchWorkflowRuns',
  summary: 'Run progress as server-sent events (`run`, `step`, `reset`, `reconnect`, `end`), resumable by sequence number',
  description:
    'Each `run` and `step` event has its sequence number as `id`; reconnect with `Last-Event-ID` (or `?after=`) to resume. ' +
    'The stream re-checks the credential, the app and its compute minutes every few seconds and ends with an `end` event ' +
    '(`{code, status}`: 401, 403, 404 or 429 quota_exhausted) that clients must not reconnect after. `reconnect` asks the ' +
    'client to reconnect with the given sequence (about every 280 seconds).',
  tags: ['workflows'],
  auth: 'credential',
  envelope: false,
  params: AppParams,
  query: WatchQuery,
  response: { status: 200, description: 'text/event-stream', schema: z.string() },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'invalid_payload', 'app_not_found', 'quota_exhausted'],
  async handler({ db, deps, principal, params, query, ctx }) {
    const { app } = await appOfCaller({ db, clock: deps.clock }, principal, params, 'app.workflow.read-runs');
    const lastEventId = Number(ctx.get('last-event-id'));
    const after = query.after ?? (Number.isSafeInteger(lastEventId) && lastEventId > 0 ? lastEventId : 0);
    return {
      data: watchRuns(ctx, deps, ROUTE_ACCESS.watchWorkflowRuns!, app.id, after) as unknown as string,
      headers: SSE_HEADERS,
    };
  },
});

const IdempotencyHeader = z.string().min(1).max(255);

export const executeApiRoute = defineRoute({
  method: 'post',
  path: `${APP}/apis/{name}/execute`,
  operationId: 'executeAppApi',
  summary: 'Runs one API of the app: an export (a query, answered at once) or the workflow `run`; `Idempotency-Key` replays the same run',
  description:
    'An export answers 200 with `result.data`, read as the caller. For `run`: ' +
    '`x-svc-dry-run: true` validates the input only. `preview` answers the steps the run would take. The answer waits for ' +
    'the run (up to SVC_RUN_START_WAIT_MS): 201 with a finished run, 202 with a run still going (watch it or list runs). ' +
    'The same `Idempotency-Key` answers the first run with it (200, `replayed: true`), never a second run.',
  tags: ['workflows'],
  auth: 'credential',
  write: true,
  params: AppParams.extend({ name: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/) }),
  body: ExecuteRequest,
  response: { status: 201, description: 'The run.', schema: ExecuteResult },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'invalid_payload', 'app_not_found', 'not_found', 'quota_exhausted', 'conflict'],
  async handler({ db, deps, principal, params, body, ctx, afterCommit }) {
    // An export is a read: it answers at once, as the caller, and starts no run.
    if (params.name !== WORKFLOW_API_NAME) {
      const reached = await reachApp(deps, principal, targetOf(principal, { ...params, channel: body.channel }));
      const result = await runApi({ db, clock: deps.clock }, principal, reached, params.name, body.input);
      return { status: 200, data: { replayed: false, run: null, result } };
    }
    const key = ctx.get('idempotency-key');
    const idempotencyKey = key === '' ? undefined : IdempotencyHeader.parse(key);
    const outcome = await executeWorkflowApi(db, deps.clock, principal, { ...params, ...body, idempotencyKey });
    if (outcome.kind === 'preview') return { status: 200, data: { replayed: false, run: null, plan: { steps: outcome.steps } } };
    if (outcome.kind === 'replayed') return { status: 200, data: { replayed: true, run: outcome.run } };
    const data: z.input<typeof ExecuteResult> = { replayed: false, run: null };
    const answer = { status: 202, data, plan: { wouldStart: { api: params.name, input: body.input } } };
    afterCommit(async () => {
      data.run = await awaitRunResult(deps.db, outcome.runId, deps.http.runStartWaitMs);
      if (data.run.status !== 'running') answer.status = 201;
    });
    return answer;
  },
});

export const capabilitiesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/capabilities/{namespace}',
  operationId: 'listCapabilities',
  summary: 'The company’s capability catalog: what workflow `use` steps may call (platform built-ins and the apps’ exports)',
  tags: ['workflows'],
  auth: 'credential',
  params: z.object({ namespace: z.string().regex(NAMESPACE_PATTERN) }),
  response: { status: 200, description: 'The catalog.', schema: CapabilityCatalog },
  errors: ['unauthorized', 'forbidden', 'invalid_path'],
  handler: async ({ db, principal, params }) => ({
    data: { namespace: params.namespace, capabilities: await listCapabilities(db, principal, params.namespace) },
  }),
});

export const notifyTestRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/notify/test',
  operationId: 'sendTestNotification',
  summary: 'Sends a test email to the caller’s own address (recorded, not sent, when no SMTP server is configured)',
  tags: ['workflows'],
  auth: 'credential',
  rateLimit: { perMinute: 10 },
  write: true,
  response: { status: 200, description: 'What became of the message.', schema: NotifyTestResult },
  errors: ['unauthorized', 'forbidden', 'rate_limited'],
  async handler({ db, deps, principal, afterCommit }) {
    const recorded = await recordTestNotification(db, principal, deps.mailer.configured);
    const data: z.input<typeof NotifyTestResult> = { to: recorded.to, status: 'recorded', emailConfigured: deps.mailer.configured };
    afterCommit(async () => {
      // The caller waits for the answer: a refusal for now is reported, not retried.
      await deliverPending(deps.db, deps.mailer, (q) => q.where('id', '=', recorded.id), { temporary: 'fail' });
      const outcome = await testNotificationOutcome(deps.db, recorded.id);
      data.status = outcome.status as 'sent' | 'recorded' | 'failed';
      if (outcome.error) data.error = outcome.error;
    });
    return { data };
  },
});

export const appWorkflowRoutes = [workflowSchemaRoute, listRunsRoute, watchRunsRoute, executeApiRoute, capabilitiesRoute, notifyTestRoute];
