// Temporal's answers to requests it cannot serve, over every RPC this server implements (read
// from its handler maps, so a new RPC is covered without touching this file): an unknown
// namespace (gRPC and HTTP API), missing, unreadable or foreign task tokens, and tokens or ids
// naming no task.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMessage, lookupService, lookupType, type Msg } from '../common/proto.ts';
import { encodeToken, type TaskToken } from '../common/tokens.ts';
import { httpRoutes } from '../frontend/http-api.ts';
import { operatorServiceHandlers } from '../frontend/operator-service.ts';
import { workflowServiceHandlers } from '../frontend/workflow-service.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../index.ts';
import { ServerState } from '../namespace/registry.ts';
import { eventTypes, eventually, grpcError, sharedBundle } from './helpers.ts';
import { runActivity, waitForever } from './workflows/index.ts';

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const WORKFLOW_SERVICE = 'temporal.api.workflowservice.v1.WorkflowService';
const OPERATOR_SERVICE = 'temporal.api.operatorservice.v1.OperatorService';
const UNKNOWN = 'no-such-namespace';
const ACTIVITY_TASK_NOT_FOUND = 'invalid activityID or activity already timed out or invoking workflow is completed';

/** Every implemented RPC, by service, from the handler maps the server is built from. */
const blank = new ServerState({ timeSkipping: false });
const implemented: Array<[string, string]> = [
  ...Object.keys(workflowServiceHandlers(blank)).map((m) => [WORKFLOW_SERVICE, m] as [string, string]),
  ...Object.keys(operatorServiceHandlers(blank)).map((m) => [OPERATOR_SERVICE, m] as [string, string]),
];
const fieldsOf = (service: string, method: string): Record<string, unknown> => {
  const m = lookupService(service).methods[method]!;
  m.resolve();
  return (m.resolvedRequestType as unknown as { fields: Record<string, unknown> }).fields;
};
const withToken = implemented.filter(([service, m]) => fieldsOf(service, m).taskToken);
const withNamespace = implemented.filter(([service, m]) => !fieldsOf(service, m).taskToken && fieldsOf(service, m).namespace);

let server: TemporalDevServer;
let connection: Connection;
let client: Client;
let worker: { stop(): Promise<void> };
const taskQueue = 'request-errors';

beforeAll(async () => {
  server = await startTemporalDevServer({ namespaces: ['default', 'other'], httpPort: 0 });
  // No retrying interceptors: each call's own status is what is checked.
  connection = await Connection.connect({ address: server.address, interceptors: [] });
  client = new Client({ connection });
  const native = await NativeConnection.connect({ address: server.address });
  const w = await Worker.create({ connection: native, taskQueue, workflowBundle: await sharedBundle() });
  const running = w.run();
  worker = {
    stop: async () => {
      w.shutdown();
      await running;
      await native.close();
    },
  };
});
afterAll(async () => {
  await worker?.stop();
  await connection?.close();
  await server?.stop();
});

const lowerFirst = (s: string) => s[0]!.toLowerCase() + s.slice(1);
/** Calls an RPC by name through the SDK's connection. */
const call = (service: string, method: string, request: Msg): Promise<unknown> => {
  const stub = (service === WORKFLOW_SERVICE ? connection.workflowService : connection.operatorService) as unknown as Record<
    string,
    (r: Msg) => Promise<unknown>
  >;
  return stub[lowerFirst(method)]!.call(stub, request);
};

/** Code, message and the NamespaceNotFoundFailure detail (if any) of a failed call. */
async function failure(p: Promise<unknown>): Promise<{ code: number; details: string; namespaceNotFound?: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: number; details: string; metadata?: { get(key: string): Array<Buffer | string> } };
    const bin = e.metadata?.get('grpc-status-details-bin')?.[0];
    if (!bin) return { code: e.code, details: e.details };
    const statusMsg = decodeMessage(lookupType('google.rpc.Status'), bin as Buffer);
    const any = statusMsg.details[0];
    expect(any.typeUrl ?? any.type_url).toBe('type.googleapis.com/temporal.api.errordetails.v1.NamespaceNotFoundFailure');
    const detail = decodeMessage(lookupType('temporal.api.errordetails.v1.NamespaceNotFoundFailure'), any.value);
    return { code: e.code, details: e.details, namespaceNotFound: detail.namespace };
  }
  throw new Error('expected the call to fail');
}

const token = (fields: Partial<TaskToken>): Buffer =>
  encodeToken({ boot: server.state.bootId, namespace: 'default', workflowId: 'w', runId: 'r', kind: 'at', id: 5, attempt: 1, ...fields });

describe('an unknown namespace', () => {
  it('covers the RPCs it should', () => {
    // A guard on the enumeration itself: these must be among the cases below.
    const names = [...withNamespace, ...withToken].map(([, m]) => m);
    for (const m of ['StartWorkflowExecution', 'QueryWorkflow', 'UpdateWorkflowExecution', 'CreateSchedule', 'DescribeTaskQueue']) {
      expect(names).toContain(m);
    }
    for (const m of ['RespondActivityTaskCompletedById', 'ListSearchAttributes', 'AddSearchAttributes', 'RemoveSearchAttributes']) {
      expect(names).toContain(m);
    }
    expect(withToken.map(([, m]) => m)).toContain('RespondQueryTaskCompleted');
  });

  it.each(withNamespace.filter(([, m]) => m !== 'RegisterNamespace'))(
    '%s %s: NOT_FOUND with NamespaceNotFoundFailure',
    async (service, method) => {
      expect(await failure(call(service, method, { namespace: UNKNOWN }))).toEqual({
        code: NOT_FOUND,
        details: `Namespace ${UNKNOWN} is not found.`,
        namespaceNotFound: UNKNOWN,
      });
    },
  );

  it.each(withToken)('%s %s: a task token of an unknown namespace is NOT_FOUND with NamespaceNotFoundFailure', async (service, method) => {
    expect(await failure(call(service, method, { taskToken: token({ namespace: UNKNOWN }) }))).toEqual({
      code: NOT_FOUND,
      details: `Namespace ${UNKNOWN} is not found.`,
      namespaceNotFound: UNKNOWN,
    });
  });

  it.each(withToken)('%s %s: a named unknown namespace is NOT_FOUND before the token is read', async (service, method) => {
    expect(await failure(call(service, method, { namespace: UNKNOWN, taskToken: Buffer.from([1]) }))).toEqual({
      code: NOT_FOUND,
      details: `Namespace ${UNKNOWN} is not found.`,
      namespaceNotFound: UNKNOWN,
    });
  });

  it.each(withNamespace)('%s %s: a missing namespace', async (service, method) => {
    const optional = ['AddSearchAttributes', 'RemoveSearchAttributes', 'ListSearchAttributes'].includes(method);
    const outcome = call(service, method, {});
    if (optional) await outcome.catch((err: { code: number }) => expect(err.code).not.toBe(NOT_FOUND));
    else expect(await failure(outcome)).toEqual({ code: INVALID_ARGUMENT, details: 'Namespace not set on request.' });
  });

  it('is answered on every HTTP API route that names a namespace', async () => {
    const served = new Set(implemented.map(([, m]) => m));
    const routes = httpRoutes().filter(
      (r) => served.has(r.method) && r.segments.some((s) => 'field' in s && s.field.join('.') === 'namespace'),
    );
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) {
      const path = route.segments.map((s) => ('literal' in s ? s.literal : s.field.join('.') === 'namespace' ? UNKNOWN : 'x')).join('/');
      const tokenField = fieldsOf(route.service, route.method).taskToken;
      const body = tokenField ? { taskToken: token({ namespace: UNKNOWN }).toString('base64') } : {};
      const res = await fetch(`${server.httpUrl}/${path}`, {
        method: route.httpMethod,
        body: route.body ? JSON.stringify(body) : undefined,
        headers: route.body ? { 'content-type': 'application/json' } : undefined,
      });
      const json = (await res.json()) as { code: number; details?: Array<Record<string, unknown>> };
      expect([route.template, res.status, json.code]).toEqual([route.template, 404, NOT_FOUND]);
      expect(json.details?.[0]).toEqual({
        '@type': 'type.googleapis.com/temporal.api.errordetails.v1.NamespaceNotFoundFailure',
        namespace: UNKNOWN,
      });
    }
  });
});

describe('task tokens', () => {
  it.each(withToken)('%s %s: missing, unreadable and foreign tokens', async (service, method) => {
    expect(await failure(call(service, method, { namespace: 'default' }))).toEqual({
      code: INVALID_ARGUMENT,
      details: 'Task token not set on request.',
    });
    for (const garbage of [Buffer.from('not a token'), Buffer.from('"string"'), Buffer.from([0xff, 0x00, 0x12])]) {
      expect(await failure(call(service, method, { namespace: 'default', taskToken: garbage }))).toEqual({
        code: INVALID_ARGUMENT,
        details: 'Error deserializing task token.',
      });
    }
    expect(await failure(call(service, method, { namespace: 'default', taskToken: token({ namespace: 'other' }) }))).toEqual({
      code: INVALID_ARGUMENT,
      details: 'Operation requested with a token from a different namespace.',
    });
  });

  /** Temporal's NOT_FOUND messages for a token naming no task, on an open run and on a closed one. */
  const expected: Record<string, { kind: TaskToken['kind']; open: string; closed: string }> = {
    RecordActivityTaskHeartbeat: { kind: 'at', open: ACTIVITY_TASK_NOT_FOUND, closed: 'workflow execution already completed' },
    RespondActivityTaskCompleted: { kind: 'at', open: ACTIVITY_TASK_NOT_FOUND, closed: 'workflow execution already completed' },
    RespondActivityTaskFailed: { kind: 'at', open: ACTIVITY_TASK_NOT_FOUND, closed: 'workflow execution already completed' },
    RespondActivityTaskCanceled: { kind: 'at', open: ACTIVITY_TASK_NOT_FOUND, closed: 'workflow execution already completed' },
    RespondWorkflowTaskCompleted: { kind: 'wt', open: 'Workflow task not found.', closed: 'Workflow task not found.' },
    RespondWorkflowTaskFailed: { kind: 'wt', open: 'Workflow task not found.', closed: 'workflow execution already completed' },
    RespondQueryTaskCompleted: {
      kind: 'qt',
      open: 'query task not found, or already expired',
      closed: 'query task not found, or already expired',
    },
  };

  it.each(withToken)('%s %s: a token naming no task, or a task of another kind', async (service, method) => {
    const want = expected[method];
    expect(want, `add ${method} to the expected messages`).toBeDefined();
    const open = await client.workflow.start(waitForever, { taskQueue, workflowId: `open-${randomUUID()}` });
    const closed = await client.workflow.start(waitForever, { taskQueue, workflowId: `closed-${randomUUID()}` });
    await closed.terminate();
    const of = (h: { workflowId: string; firstExecutionRunId: string }, fields: Partial<TaskToken> = {}) =>
      token({ workflowId: h.workflowId, runId: h.firstExecutionRunId, kind: want!.kind, id: 999, ...fields });
    const notFound = (details: string) => ({ code: NOT_FOUND, details });
    expect(await failure(call(service, method, { namespace: 'default', taskToken: of(open) }))).toEqual(notFound(want!.open));
    expect(await failure(call(service, method, { namespace: 'default', taskToken: of(closed) }))).toEqual(notFound(want!.closed));
    const otherKind = want!.kind === 'at' ? 'wt' : 'at';
    expect(await failure(call(service, method, { namespace: 'default', taskToken: of(open, { kind: otherKind }) }))).toEqual(
      notFound(want!.open),
    );
    await open.terminate();
  });
});

describe('activities by id', () => {
  const svc = () => connection.workflowService;
  const payloads = (v: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(v)] });

  /** A run whose activity waits, queued, on a task queue no worker polls. */
  async function queuedActivity() {
    const handle = await client.workflow.start(runActivity, {
      taskQueue,
      workflowId: `by-id-${randomUUID()}`,
      args: [
        'anything',
        { taskQueue: `nobody-${randomUUID()}`, activityId: 'a1', startToCloseTimeout: '1 minute', retry: { maximumAttempts: 1 } },
        [],
      ],
    });
    await eventually(async () => (await handle.describe()).raw.pendingActivities?.length === 1);
    return handle;
  }

  it('answers as Temporal for missing ids, unknown activities, closed runs and activities not started', async () => {
    const handle = await queuedActivity();
    const at = { namespace: 'default', workflowId: handle.workflowId };
    expect(await grpcError(svc().respondActivityTaskCompletedById({ ...at }))).toEqual({
      code: INVALID_ARGUMENT,
      details: 'ActivityId is not set on request.',
    });
    expect(await grpcError(svc().respondActivityTaskFailedById({ namespace: 'default', activityId: 'a1' }))).toEqual({
      code: INVALID_ARGUMENT,
      details: 'WorkflowId is not set on request.',
    });
    expect(await grpcError(svc().recordActivityTaskHeartbeatById({ ...at, activityId: 'nope' }))).toEqual({
      code: NOT_FOUND,
      details: 'cannot find pending activity with ActivityID nope, check workflow execution history for more details',
    });
    // Heartbeat, failure and cancellation need an attempt that a worker started.
    for (const rpc of [svc().recordActivityTaskHeartbeatById, svc().respondActivityTaskFailedById, svc().respondActivityTaskCanceledById]) {
      expect(await grpcError(rpc.call(svc(), { ...at, activityId: 'a1' }))).toEqual({ code: NOT_FOUND, details: ACTIVITY_TASK_NOT_FOUND });
    }
    await handle.terminate();
    expect(await grpcError(svc().respondActivityTaskCompletedById({ ...at, activityId: 'a1' }))).toEqual({
      code: NOT_FOUND,
      details: 'workflow execution already completed',
    });
  });

  it('completes by id an activity that never started, writing its ActivityTaskStarted', async () => {
    const handle = await queuedActivity();
    await svc().respondActivityTaskCompletedById({
      namespace: 'default',
      workflowId: handle.workflowId,
      activityId: 'a1',
      result: payloads('done by id'),
      identity: 'operator',
    });
    expect(await handle.result()).toEqual({ ok: 'done by id' });
    const events = (await handle.fetchHistory()).events!;
    const started = events.find((e) => e.activityTaskStartedEventAttributes)!;
    expect(started.activityTaskStartedEventAttributes!.identity).toBe('operator');
    expect(eventTypes(events)).toContain('ACTIVITY_TASK_COMPLETED');
  });

  it('refuses a cancellation report for an activity whose cancellation nobody requested', async () => {
    const handle = await queuedActivity();
    const queue = (await handle.describe()).raw.pendingActivities![0]!;
    expect(queue.activityId).toBe('a1');
    const task = await svc().pollActivityTaskQueue({
      namespace: 'default',
      taskQueue: {
        name: (await handle.fetchHistory()).events!.find((e) => e.activityTaskScheduledEventAttributes)!
          .activityTaskScheduledEventAttributes!.taskQueue!.name!,
      },
      identity: 'test',
    });
    expect(await grpcError(svc().respondActivityTaskCanceled({ namespace: 'default', taskToken: task.taskToken }))).toEqual({
      code: INVALID_ARGUMENT,
      details: 'unable to mark activity as canceled without activity being request canceled first',
    });
    await handle.terminate();
  });
});
