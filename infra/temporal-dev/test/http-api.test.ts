// Temporal's HTTP API (--http-port, and /api/v1 on the UI port) with plain fetch, against a
// server that the SDK's client and worker drive at the same time.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRoutes } from '../frontend/http-api.ts';
import { messageFromJson, messageToJson, typeOf } from '../frontend/proto-json.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../index.ts';
import { eventually, sharedBundle } from './helpers.ts';
import { collect, greeting, waitForever } from './workflows/index.ts';

let server: TemporalDevServer;
let client: Client;
let worker: Worker;
let running: Promise<void>;
const taskQueue = 'http-api';
const identity = 'http-api-test-worker';

beforeAll(async () => {
  server = await startTemporalDevServer({ httpPort: 0, uiPort: 0 });
  client = new Client({ connection: await Connection.connect({ address: server.address }) });
  worker = await Worker.create({
    connection: await NativeConnection.connect({ address: server.address }),
    taskQueue,
    identity,
    workflowBundle: await sharedBundle(),
    activities: { greet: async (name: string) => `Hello, ${name}!` },
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await server?.stop();
});

const id = (prefix: string) => `${prefix}-${randomUUID()}`;
const b64 = (text: string) => Buffer.from(text).toString('base64');

async function call(path: string, init: { method?: string; body?: unknown; base?: string } = {}) {
  const res = await fetch(`${init.base ?? server.httpUrl}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const body = (await res.json()) as any;
  return { status: res.status, body };
}

describe('routes', () => {
  it('come from the google.api.http annotations, additional bindings included', () => {
    const routes = httpRoutes().map((r) => `${r.httpMethod} ${r.template} ${r.method}`);
    expect(routes).toContain('GET /api/v1/namespaces/{namespace}/workflows/{execution.workflow_id} DescribeWorkflowExecution');
    expect(routes).toContain('GET /namespaces/{namespace}/workflows/{execution.workflow_id} DescribeWorkflowExecution');
    expect(routes).toContain('GET /cluster GetClusterInfo');
    expect(routes).toContain('GET /api/v1/namespaces/{namespace}/search-attributes ListSearchAttributes');
    // A method with several additional bindings (a list in the descriptor).
    expect(routes).toContain(
      'POST /api/v1/namespaces/{namespace}/workflows/{workflow_id}/activities/{activity_id}/complete RespondActivityTaskCompletedById',
    );
    // Methods without an annotation (worker polls) have no route.
    expect(routes.some((r) => r.endsWith(' PollWorkflowTaskQueue'))).toBe(false);
  });
});

describe('proto3 JSON', () => {
  const info = typeOf('temporal.api.workflow.v1.WorkflowExecutionInfo');
  const shorthand = { payloadShorthand: true };

  it('writes timestamps and durations with 0, 3, 6 or 9 fractional digits, as Go does', () => {
    const json = messageToJson(
      info,
      {
        startTime: { seconds: 1_700_000_000, nanos: 0 },
        closeTime: { seconds: 1, nanos: 1_000 },
        executionDuration: { seconds: 1, nanos: 500_000_000 },
      },
      shorthand,
    );
    expect(json).toEqual({ startTime: '2023-11-14T22:13:20Z', closeTime: '1970-01-01T00:00:01.000001Z', executionDuration: '1.500s' });
  });

  it('reads enums by name, by number and in the short form Temporal accepts, and 64-bit numbers from strings', () => {
    for (const status of ['WORKFLOW_EXECUTION_STATUS_RUNNING', 1, 'Running']) {
      expect(messageFromJson(info, { status, historyLength: '9007199254740993' }, shorthand)).toMatchObject({ status: 1 });
    }
    expect(() => messageFromJson(info, { status: 'Sleeping' }, shorthand)).toThrow(/invalid value for enum/);
  });

  it('keeps a json/protobuf payload as the message with its type in shorthand, and reads it back', () => {
    const payload = {
      metadata: { encoding: Buffer.from('json/protobuf'), messageType: Buffer.from('my.Msg') },
      data: Buffer.from('{"b":1,"a":"x"}'),
    };
    const type = typeOf('temporal.api.common.v1.Payload');
    const json = messageToJson(type, payload, shorthand);
    expect(json).toEqual({ a: 'x', b: 1, _protoMessageType: 'my.Msg' });
    const back = messageFromJson(type, json, shorthand);
    expect(Buffer.from(back.metadata.messageType).toString()).toBe('my.Msg');
    expect(Buffer.from(back.data).toString()).toBe('{"a":"x","b":1}'); // keys sorted, as Go writes them
  });
});

describe('cluster and namespaces', () => {
  it('describes the cluster, the system and the namespaces', async () => {
    const cluster = await call('/api/v1/cluster-info');
    expect(cluster).toMatchObject({ status: 200, body: { clusterName: 'temporal-dev', historyShardCount: 1 } });
    const system = await call('/api/v1/system-info');
    expect(system.body.capabilities).toMatchObject({ signalAndQueryHeader: true, countGroupByExecutionStatus: true });
    const list = await call('/api/v1/namespaces');
    expect(list.body.namespaces.map((n: any) => n.namespaceInfo.name)).toEqual(['default']);
    // The annotation's other binding answers the same.
    expect((await call('/cluster/namespaces')).body).toEqual(list.body);
  });

  it('writes enums by name, durations as seconds and leaves default values out', async () => {
    const { body } = await call('/api/v1/namespaces/default');
    expect(body.namespaceInfo).toMatchObject({ name: 'default', state: 'NAMESPACE_STATE_REGISTERED' });
    expect(body.config.workflowExecutionRetentionTtl).toBe('86400s');
    expect(body).not.toHaveProperty('isGlobalNamespace'); // false is proto3's default
  });

  it('lists search attributes by type name', async () => {
    const { body } = await call('/api/v1/namespaces/default/search-attributes');
    expect(body.systemAttributes).toMatchObject({ WorkflowId: 'INDEXED_VALUE_TYPE_KEYWORD', StartTime: 'INDEXED_VALUE_TYPE_DATETIME' });
  });
});

describe('workflows started through the SDK', () => {
  let workflowId: string;
  let runId: string;
  beforeAll(async () => {
    workflowId = id('greet/slash'); // a "/" travels percent-encoded in the path
    const handle = await client.workflow.start(greeting, { taskQueue, workflowId, args: ['HTTP'] });
    runId = handle.firstExecutionRunId;
    await handle.result();
  });
  const path = () => `/api/v1/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;

  it('lists them with a query, 64-bit numbers as strings and RFC 3339 times', async () => {
    const query = encodeURIComponent(`WorkflowId = "${workflowId}"`);
    const { status, body } = await call(`/api/v1/namespaces/default/workflows?query=${query}`);
    expect(status).toBe(200);
    expect(body.executions).toHaveLength(1);
    const info = body.executions[0];
    expect(info).toMatchObject({
      execution: { workflowId, runId },
      type: { name: 'greeting' },
      status: 'WORKFLOW_EXECUTION_STATUS_COMPLETED',
      taskQueue,
    });
    expect(info.historyLength).toMatch(/^\d+$/);
    expect(info.startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6}|\.\d{9})?Z$/);
  });

  it('maps query parameters onto nested request fields, by JSON or proto name', async () => {
    const byJsonName = await call(`${path()}?execution.runId=${runId}`);
    expect(byJsonName.body.workflowExecutionInfo.execution).toEqual({ workflowId, runId });
    const byProtoName = await call(`${path()}?execution.run_id=${runId}`);
    expect(byProtoName.body).toEqual(byJsonName.body);
    const wrongRun = await call(`${path()}?execution.runId=${randomUUID()}`);
    expect(wrongRun.status).toBe(404);
  });

  it('returns the history with payloads in shorthand, or as proto JSON on request', async () => {
    const { body } = await call(`${path()}/history`);
    const started = body.history.events[0];
    expect(started).toMatchObject({ eventId: '1', eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED' });
    expect(started.workflowExecutionStartedEventAttributes.input).toEqual(['HTTP']);
    expect(started.workflowExecutionStartedEventAttributes.workflowTaskTimeout).toBe('10s');
    const completed = body.history.events.at(-1);
    expect(completed.workflowExecutionCompletedEventAttributes.result).toEqual(['Hello, HTTP!']);

    const full = await call(`${path()}/history?noPayloadShorthand`);
    expect(full.body.history.events[0].workflowExecutionStartedEventAttributes.input).toEqual({
      payloads: [{ metadata: { encoding: b64('json/plain') }, data: b64('"HTTP"') }],
    });
    // The UI port always writes full payloads, as Temporal's UI server does.
    const ui = await call(`${path()}/history`, { base: server.uiUrl });
    expect(ui.body).toEqual(full.body);
  });

  it('pages with base64 tokens and filters the close event by enum name', async () => {
    const first = await call(`${path()}/history?maximumPageSize=2`);
    expect(first.body.history.events.map((e: any) => e.eventId)).toEqual(['1', '2']);
    const token = encodeURIComponent(first.body.nextPageToken);
    const second = await call(`${path()}/history?maximumPageSize=2&nextPageToken=${token}`);
    expect(second.body.history.events.map((e: any) => e.eventId)).toEqual(['3', '4']);
    const close = await call(`${path()}/history?historyEventFilterType=HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT`);
    expect(close.body.history.events.map((e: any) => e.eventType)).toEqual(['EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED']);
  });

  it('counts by execution status', async () => {
    const query = encodeURIComponent(`WorkflowId = "${workflowId}" GROUP BY ExecutionStatus`);
    const { body } = await call(`/api/v1/namespaces/default/workflow-count?query=${query}`);
    expect(body.count).toBe('1');
    expect(body.groups[0].count).toBe('1');
    expect(body.groups[0].groupValues[0].data).toBe(b64('"Completed"'));
  });
});

describe('writes over HTTP', () => {
  it('starts a workflow from shorthand JSON (snake_case accepted) that the SDK worker runs', async () => {
    const workflowId = id('http-start');
    const { status, body } = await call(`/api/v1/namespaces/default/workflows/${workflowId}`, {
      body: { workflow_type: { name: 'greeting' }, taskQueue: { name: taskQueue }, input: ['JSON'], workflowRunTimeout: '60s' },
    });
    expect(status).toBe(200);
    expect(body.started).toBe(true);
    expect(await client.workflow.getHandle(workflowId, body.runId).result()).toBe('Hello, JSON!');
    const described = await client.workflow.getHandle(workflowId).describe();
    expect(described.raw.executionConfig?.workflowRunTimeout?.seconds?.toString()).toBe('60');
  });

  it('signals, queries and terminates a running workflow', async () => {
    const workflowId = id('http-signal');
    const handle = await client.workflow.start(collect, { taskQueue, workflowId, args: [3] });
    const signal = (item: unknown) =>
      call(`/api/v1/namespaces/default/workflows/${workflowId}/signal/add`, { body: { input: [item], identity: 'curl' } });
    expect(await signal('one')).toEqual({ status: 200, body: {} });
    // A payload in full proto JSON is taken as such, not as a JSON value.
    const full = await call(`/api/v1/namespaces/default/workflows/${workflowId}/signal/add`, {
      body: { input: { payloads: [{ metadata: { encoding: b64('json/plain') }, data: b64('"two"') }] } },
    });
    expect(full.status).toBe(200);
    const query = await eventually(async () => {
      const r = await call(`/api/v1/namespaces/default/workflows/${workflowId}/query/items`, { body: {} });
      return r.body.queryResult?.[0]?.length === 2 && r;
    });
    expect(query.body.queryResult).toEqual([['one', 'two']]);

    const terminated = await call(`/api/v1/namespaces/default/workflows/${workflowId}/terminate`, { body: { reason: 'from HTTP' } });
    expect(terminated.status).toBe(200);
    expect((await handle.describe()).status.name).toBe('TERMINATED');
  });

  it('answers a history long poll when a new event arrives', async () => {
    const workflowId = id('http-wait');
    const handle = await client.workflow.start(waitForever, { taskQueue, workflowId });
    const path = `/api/v1/namespaces/default/workflows/${workflowId}/history`;
    const first = await eventually(async () => {
      const r = await call(`${path}?waitNewEvent=true`); // with a token to wait on from the end
      return r.body.history.events.length >= 4 && r; // the first workflow task has completed
    });
    const token = encodeURIComponent(first.body.nextPageToken);
    const waiting = call(`${path}?waitNewEvent=true&nextPageToken=${token}`);
    await new Promise((r) => setTimeout(r, 200));
    await handle.signal('unhandled', 'x');
    const next = await waiting;
    expect(next.body.history.events[0].eventType).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED');
    await handle.terminate();
  });

  it('reports the task queue pollers per type, the type given by name or number', async () => {
    const path = `/api/v1/namespaces/default/task-queues/${taskQueue}`;
    for (const type of ['1', 'TASK_QUEUE_TYPE_WORKFLOW', '2', 'TASK_QUEUE_TYPE_ACTIVITY']) {
      const { body } = await call(`${path}?taskQueueType=${type}`);
      expect(body.pollers.map((p: any) => p.identity)).toContain(identity);
      expect(body.pollers[0].lastAccessTime).toMatch(/Z$/);
    }
    expect((await call('/api/v1/namespaces/default/task-queues/nobody-polls?taskQueueType=1')).body).toEqual({});
  });
});

describe('errors', () => {
  it('carry the gRPC code, message and details, with the HTTP status grpc-gateway gives that code', async () => {
    const missing = await call('/api/v1/namespaces/missing/workflows');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      code: 5,
      message: 'Namespace missing is not found.',
      details: [{ '@type': 'type.googleapis.com/temporal.api.errordetails.v1.NamespaceNotFoundFailure', namespace: 'missing' }],
    });

    const workflowId = id('dup');
    const body = { workflowType: { name: 'waitForever' }, taskQueue: { name: taskQueue } };
    expect((await call(`/api/v1/namespaces/default/workflows/${workflowId}`, { body })).status).toBe(200);
    const again = await call(`/api/v1/namespaces/default/workflows/${workflowId}`, { body: { ...body, requestId: 'another' } });
    expect(again).toMatchObject({ status: 409, body: { code: 6 } });
    await client.workflow.getHandle(workflowId).terminate();
  });

  it('rejects bad JSON, unknown fields and wrongly typed values as INVALID_ARGUMENT', async () => {
    const path = `/api/v1/namespaces/default/workflows/${id('bad')}`;
    for (const body of ['{not json', { workflowTypo: {} }, { workflowType: { name: 1 } }, { workflowRunTimeout: '1 hour' }]) {
      const res = await call(path, { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(3);
    }
  });

  it('answers UNIMPLEMENTED for methods temporal-dev lacks and NOT_FOUND for unknown paths', async () => {
    const batch = await call('/api/v1/namespaces/default/batch-operations');
    expect(batch).toMatchObject({ status: 501, body: { code: 12 } });
    expect(batch.body.message).toContain('ListBatchOperations');
    expect(await call('/api/v1/no/such/route')).toEqual({ status: 404, body: { code: 5, message: 'Not Found' } });
    expect((await call('/api/v1/cluster-info', { method: 'DELETE' })).status).toBe(501);
  });
});
