import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { expressionThreads } from '../../../domain/app-workflows/evaluation-threads.ts';
import { EvaluationBudget } from '../../../domain/app-workflows/expression.ts';
import { getApp } from '../../../domain/apps/repository.ts';
import { recordUsage } from '../../../domain/usage/record-usage.ts';
import { appScheduleId } from '../../../workflows/contract.ts';
import { type ReceivedMail, startSmtpSink } from '../../support/app-workflows.ts';
import { bundle } from '../../support/bundles.ts';
import { release } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// App workflows over real HTTP with the worker, the relay and the embedded Temporal server in
// the process: deploy validation against the capability catalog, the catalog itself, execute
// with Idempotency-Key replay, the runs list, the watch stream, the mail test on a real SMTP
// server on loopback, and a publish that makes the app's Temporal Schedule.

let svc: TestService;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let dev: string;
let member: string;
let globex: string;
const base = (slug: string) => `/api/v1/developer/apps/cell-acme/${slug}`;
const people = { id: 'people', kind: 'use', capability: 'platform.accounts', input: { role: 'developer' } };
const flowManifest = {
  sdk: ['semantic'],
  workflow: {
    description: 'Tells the developers of a region.',
    input: { region: { type: 'text', required: true }, limit: { type: 'integer' } },
    steps: [
      people,
      { id: 'names', kind: 'compute', op: 'per-row', from: '=steps.people', fields: { tag: '=concat(input.region, ":", row.username)' } },
      {
        id: 'tell',
        kind: 'notify',
        to: ['dana@example.com'],
        subject: '=concat("Region ", input.region)',
        body: '=join(pluck(steps.names, "tag"), ", ")',
        dedupeKey: '=run.id',
      },
    ],
  },
};

beforeAll(async () => {
  smtp = await startSmtpSink();
  svc = await startTestService({ role: 'all', env: { SVC_SMTP_URL: smtp.url, SVC_RUN_START_WAIT_MS: '30000' } });
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  member = await passwordKey(svc, 'mo');
  globex = await passwordKey(svc, 'gus');
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'orders',
    version: '1.0.0',
    manifest: {
      exports: [
        {
          name: 'open_orders',
          title: 'Open orders',
          kind: 'query',
          type: 'sales.Order',
          input: { region: { type: 'text', required: true } },
          where: { region: '=input.region', amount: { gte: 10 } },
          select: ['id', 'amount'],
          sort: ['-amount'],
          limit: 2,
        },
      ],
    },
  });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'flow', version: '1.0.0', manifest: flowManifest });
}, 180_000);
afterAll(async () => {
  await svc?.close();
  await smtp?.stop();
});
beforeEach(() => resetRateLimits(svc));

const mailTo = (to: string) => smtp.received.filter((m: ReceivedMail) => m.to.includes(to));

describe('deploy validation against the capability catalog', () => {
  it('refuses unknown and unavailable capabilities, strangers as recipients and malformed expressions, with paths', async () => {
    const workflow = {
      steps: [
        { id: 'a', kind: 'use', capability: 'nope.thing' },
        { id: 'b', kind: 'use', capability: 'orders.open_orders', input: { region: 'north' } },
        { id: 'c', kind: 'use', capability: 'platform.accounts', input: { colour: 'red' } },
        { id: 'd', kind: 'compute', op: 'per-row', from: '=steps.a', fields: { x: '=1 +' } },
        { id: 'e', kind: 'notify', to: ['stranger@example.com'], subject: 's', body: 'b', dedupeKey: 'k' },
      ],
    };
    const res = await svc.call('POST', `${base('broken')}/versions`, {
      body: bundle('broken', '1.0.0', { manifest: { sdk: ['semantic'], workflow } }),
      headers: bearer(dev),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.code).toBe('bundle_invalid');
    const problems = res.body.error.details.problems.map((p: { path: string; code: string }) => [p.path, p.code]);
    expect(problems).toEqual([
      ['manifest.workflow.steps[0].capability', 'capability_unknown'],
      ['manifest.workflow.steps[1].capability', 'capability_unavailable'],
      ['manifest.workflow.steps[2].input.colour', 'input_unknown'],
      ['manifest.workflow.steps[3].fields.x', 'expression_invalid'],
      ['manifest.workflow.steps[4].to[0]', 'recipient_unknown'],
    ]);
    const unavailable = res.body.error.details.problems[1].message;
    expect(unavailable).toMatch(/sales.Order is not defined in the company's ontology/);
  });
});

describe('use steps over query exports (the data layer)', () => {
  it('run the export’s where/select/sort/limit over the semantic type once it is defined', async () => {
    const types = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', {
      body: {
        types: [
          {
            apiName: 'sales.Order',
            primaryKey: 'id',
            properties: {
              id: { dataType: { type: 'string' } },
              region: { dataType: { type: 'string' } },
              amount: { dataType: { type: 'double' } },
            },
          },
        ],
      },
      headers: bearer(dev),
    });
    expect(types.status, JSON.stringify(types.body)).toBeLessThan(300);
    const orders = [
      ['o1', 'north', 5],
      ['o2', 'north', 50],
      ['o3', 'south', 70],
      ['o4', 'north', 20],
      ['o5', 'north', 30],
    ] as const;
    const edits = await svc.call('POST', '/api/v1/ontologies/cell-acme/edits', {
      body: {
        edits: orders.map(([id, region, amount]) => ({ type: 'create', objectType: 'sales.Order', properties: { id, region, amount } })),
      },
      headers: bearer(dev),
    });
    expect(edits.status, JSON.stringify(edits.body)).toBeLessThan(300);

    const workflow = {
      input: { region: { type: 'text', required: true } },
      steps: [
        { id: 'top', kind: 'use', capability: 'orders.open_orders', input: { region: '=input.region' } },
        { id: 'total', kind: 'compute', op: 'summarize', from: '=steps.top', measures: { sum: { fn: 'sum', of: 'amount' } } },
      ],
    };
    await release(svc, dev, { namespace: 'cell-acme', slug: 'top-orders', version: '1.0.0', manifest: { sdk: ['semantic'], workflow } });
    const res = await svc.call('POST', `${base('top-orders')}/apis/run/execute`, {
      body: { input: { region: 'north' } },
      headers: bearer(dev),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.run).toMatchObject({
      status: 'succeeded',
      output: {
        top: [
          { id: 'o2', amount: 50 },
          { id: 'o5', amount: 30 },
        ],
        total: [{ sum: 80 }],
      },
    });
    // The export is an API of its own app too: answered at once, as the caller, with no run.
    const runs = await svc.database.db.selectFrom('workflow_runs').select('id').execute();
    const direct = await svc.call('POST', `${base('orders')}/apis/open_orders/execute`, {
      body: { input: { region: 'north' } },
      headers: bearer(dev),
    });
    expect(direct.status, JSON.stringify(direct.body)).toBe(200);
    expect(direct.body.data).toMatchObject({
      run: null,
      result: {
        data: [
          { id: 'o2', amount: 50 },
          { id: 'o5', amount: 30 },
        ],
      },
    });
    expect(await svc.database.db.selectFrom('workflow_runs').select('id').execute()).toHaveLength(runs.length);
    // The change the edits made reached the relay as ontology.changed, consumed (no app watches it here).
    expect(await svc.database.db.selectFrom('outbox').select('topic').where('topic', '=', 'ontology.changed').execute()).toEqual([]);
  });
});

describe('capability catalog', () => {
  it('lists the platform’s capabilities and the company apps’ exports, for the company’s developers only', async () => {
    const res = await svc.call('GET', '/api/v1/developer/capabilities/cell-acme', { headers: bearer(dev) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byName = Object.fromEntries(res.body.data.capabilities.map((c: { name: string }) => [c.name, c]));
    expect(byName['platform.accounts']).toMatchObject({ source: 'platform', runnable: true });
    expect(byName['orders.open_orders']).toMatchObject({
      source: 'export',
      app: 'orders',
      runnable: true,
      input: { region: { type: 'text', required: true } },
    });
    expect((await svc.call('GET', '/api/v1/developer/capabilities/cell-acme', { headers: bearer(member) })).status).toBe(403);
    expect((await svc.call('GET', '/api/v1/developer/capabilities/cell-acme', { headers: bearer(globex) })).status).toBe(403);
    expect((await svc.call('GET', '/api/v1/developer/capabilities/cell-acme')).status).toBe(401);
  });

  it('serves the workflow object’s JSON Schema beside the manifest’s', async () => {
    const res = await svc.call('GET', '/schemas/manifest/workflow/v1.json');
    expect(res.status).toBe(200);
    expect(res.body.$id).toBe(`${svc.addresses.baseUrl}/schemas/manifest/workflow/v1.json`);
    expect(res.body.properties).toHaveProperty('steps');
    expect(res.body.properties).toHaveProperty('trigger');
  });
});

describe('workflow APIs and execute', () => {
  const execute = (body: unknown, headers: Record<string, string> = {}, key = dev) =>
    svc.call('POST', `${base('flow')}/apis/run/execute`, { body, headers: { ...bearer(key), ...headers } });
  const runCount = async () => (await svc.database.db.selectFrom('workflow_runs').select('id').execute()).length;

  it('lists the workflow as the API `run` with its input JSON Schema', async () => {
    const res = await svc.call('GET', `${base('flow')}/apis`, { headers: bearer(member) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.apis).toEqual([
      expect.objectContaining({
        name: 'run',
        kind: 'workflow',
        description: 'Tells the developers of a region.',
        route: '/api/v1/developer/apps/cell-acme/flow/apis/run/execute',
        mcpTool: 'run',
        input: expect.objectContaining({
          type: 'object',
          required: ['region'],
          properties: { region: { type: 'string', maxLength: 10000 }, limit: expect.objectContaining({ type: 'integer' }) },
          additionalProperties: false,
        }),
      }),
    ]);
  });

  it('is a tool of the app’s MCP endpoint: preview answers the steps, a call answers the finished run', async () => {
    const mcp = (params: object) =>
      svc.call('POST', `${base('flow')}/mcp`, {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params },
        headers: { ...bearer(member), accept: 'application/json, text/event-stream' },
      });
    const tools = await svc.call('POST', `${base('flow')}/mcp`, {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { ...bearer(member), accept: 'application/json, text/event-stream' },
    });
    const run = tools.body.result.tools.find((t: { name: string }) => t.name === 'run');
    expect(run.inputSchema.properties).toHaveProperty('preview');
    expect(run.annotations.readOnlyHint).toBe(false);
    const plan = await mcp({ name: 'run', arguments: { region: 'east', preview: true } });
    expect(plan.body.result.structuredContent.plan.steps.map((s: { id: string }) => s.id)).toEqual(['people', 'names', 'tell']);
    const called = await mcp({ name: 'run', arguments: { region: 'east' } });
    expect(called.body.result.isError, JSON.stringify(called.body)).toBeUndefined();
    expect(called.body.result.structuredContent.run).toMatchObject({ status: 'succeeded', trigger: 'api' });
    const refused = await mcp({ name: 'run', arguments: { colour: 'red' } });
    expect(refused.body.result).toMatchObject({ isError: true, structuredContent: { code: 'invalid_payload' } });
  });

  it('validates input (dry run validates only), previews, and replays a run by Idempotency-Key', async () => {
    const before = await runCount();
    const bad = await execute({ input: { limit: 2, colour: 'red' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.problems.map((p: { path: string }) => p.path).sort()).toEqual(['input.colour', 'input.region']);
    expect((await execute({ input: { region: 'north' } }, { 'x-svc-dry-run': 'true' })).status).toBe(202);
    const preview = await execute({ input: { region: 'north' }, preview: true });
    expect(preview.status).toBe(200);
    expect(preview.body.data.plan.steps.map((s: { id: string }) => s.id)).toEqual(['people', 'names', 'tell']);
    expect(await runCount()).toBe(before);
    expect(await svc.database.db.selectFrom('outbox').selectAll().execute()).toEqual([]);

    const first = await execute({ input: { region: 'north' } }, { 'idempotency-key': 'order-42' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const run = first.body.data.run;
    expect(run).toMatchObject({ trigger: 'api', status: 'succeeded', channel: 'production', version: '1.0.0', input: { region: 'north' } });
    expect(run.workflowId).toBe(`app-run:${run.id}`);
    expect(run.steps.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      ['people', 'succeeded'],
      ['names', 'succeeded'],
      ['tell', 'succeeded'],
    ]);
    expect(run.output.names.map((r: { tag: string }) => r.tag)).toEqual(['north:dana']);
    const mails = mailTo('dana@example.com').filter((m) => m.subject === 'Region north');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toBe('north:dana');

    const again = await execute({ input: { region: 'north' } }, { 'idempotency-key': 'order-42' });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ replayed: true, run: { id: run.id, status: 'succeeded', output: run.output } });
    expect(await runCount()).toBe(before + 1);
    expect(mailTo('dana@example.com').filter((m) => m.subject === 'Region north')).toHaveLength(1);

    const list = await svc.call('GET', `${base('flow')}/workflow-runs`, { headers: bearer(dev) });
    expect(list.status).toBe(200);
    expect(list.body.data.runs[0]).toMatchObject({ id: run.id, workflowId: run.workflowId, durationMs: expect.any(Number) });
    // Where the embedded server's Web UI shows the run (a page of the UI, not a 404).
    const ui = `${svc.temporal!.uiUrl}/namespaces/default/workflows/${encodeURIComponent(run.workflowId)}`;
    expect(list.body.data.runs[0].temporalUi).toBe(ui);
    // Where a watcher follows on from: the newest progress event of the app (the run's end at least).
    expect(list.body.data.lastEventSeq).toBeGreaterThanOrEqual(4);
    const page = await fetch(ui);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
  });

  it('answers 404 for an API the app does not have, and keeps other companies out', async () => {
    expect((await svc.call('POST', `${base('flow')}/apis/other/execute`, { body: { input: {} }, headers: bearer(dev) })).status).toBe(404);
    expect((await execute({ input: { region: 'x' } }, {}, globex)).status).toBe(403);
    expect((await execute({ input: { region: 'x' }, channel: 'test' }, {}, member)).status).toBe(403);
  });
});

interface SseEvent {
  id?: string;
  event: string;
  data: any;
}

/** Reads server-sent events until `stopWhen` says enough (or the stream ends). */
function readEvents(path: string, headers: Record<string, string>, stopWhen: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const req = http.get(`${svc.url}${path}`, { headers }, (res) => {
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      let buffer = '';
      const finish = () => {
        req.destroy();
        resolve(events);
      };
      res.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          const fields = Object.fromEntries(
            block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
          );
          if (!fields.event) continue;
          events.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data ?? 'null') });
          if (stopWhen(events)) return finish();
        }
      });
      res.on('end', () => resolve(events));
    });
    req.on('error', reject);
  });
}

describe('watch stream', () => {
  it('sends run progress with sequence numbers, resumes after the last one seen, and ends on quota_exhausted', async () => {
    const path = `${base('flow')}/workflow-runs/watch`;
    const all = await readEvents(path, bearer(dev), (events) => events.filter((e) => e.event === 'run').length >= 2);
    expect(all.map((e) => e.event).slice(0, 5)).toEqual(['run', 'step', 'step', 'step', 'run']);
    expect(all[0]!.data).toMatchObject({ type: 'run', status: 'running', workflowId: expect.stringMatching(/^app-run:/) });
    expect(all[4]!.data).toMatchObject({ type: 'run', status: 'succeeded' });
    const ids = all.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    const resumed = await readEvents(path, { ...bearer(dev), 'last-event-id': String(ids[2]) }, (events) => events.length >= 2);
    expect(resumed.map((e) => Number(e.id))).toEqual(ids.slice(3, 5));

    const ahead = await readEvents(`${path}?after=999999`, bearer(dev), (events) => events.length >= 1);
    expect(ahead[0]!.event).toBe('reset');

    // A key revoked while it watches: the stream ends with 401 (not to be reconnected).
    const watcher = await passwordKey(svc, 'dana');
    const keys = await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(watcher) });
    const keyId = keys.body.data.keys.find((k: { prefix: string }) => watcher.startsWith(k.prefix)).keyId;
    let revoked: Promise<unknown> | undefined;
    const cut = await readEvents(path, bearer(watcher), (events) => {
      revoked ??= svc.call('DELETE', `/api/v1/developer/keys/${keyId}`, { headers: bearer(dev) });
      return events.some((e) => e.event === 'end');
    });
    expect((await revoked) as { status: number }).toMatchObject({ status: 200 });
    expect(cut.at(-1)).toEqual({ event: 'end', data: expect.objectContaining({ code: 'unauthorized', status: 401 }) });

    const app = await getApp(svc.database.db, 'cell-acme', 'flow');
    await recordUsage(svc.database.db, [{ appId: app.id, meter: 'compute.live', amount: 2000 * 60_000, at: new Date() }]);
    try {
      const ended = await readEvents(path, bearer(dev), (events) => events.some((e) => e.event === 'end'));
      expect(ended.at(-1)).toEqual({ event: 'end', data: expect.objectContaining({ code: 'quota_exhausted', status: 429 }) });
    } finally {
      await svc.database.db.deleteFrom('usage_counters').execute();
    }
  });
});

describe('mail test and triggers', () => {
  it('sends a test message to the caller (nothing on a dry run)', async () => {
    const dry = await svc.call('POST', '/api/v1/developer/notify/test', { headers: { ...bearer(member), 'x-svc-dry-run': 'true' } });
    expect(dry.status).toBe(202);
    const res = await svc.call('POST', '/api/v1/developer/notify/test', { headers: bearer(member) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({ to: 'mo@example.com', status: 'sent', emailConfigured: true });
    expect(mailTo('mo@example.com').map((m) => m.subject)).toEqual(['svc mail test']);
  });

  it('a publish makes the app’s Temporal Schedule; the usage view shows the next run and email', async () => {
    const schedule = { ...flowManifest.workflow, input: {}, steps: [people], trigger: { schedule: { every: '1h' } } };
    await release(svc, dev, {
      namespace: 'cell-acme',
      slug: 'hourly',
      version: '1.0.0',
      manifest: { sdk: ['semantic'], workflow: schedule },
    });
    const app = await getApp(svc.database.db, 'cell-acme', 'hourly');
    const handle = svc.temporal!.client.schedule.getHandle(appScheduleId(app.id));
    let described: Awaited<ReturnType<typeof handle.describe>> | undefined;
    for (let i = 0; !described && i < 200; i++) {
      described = await handle.describe().catch(() => undefined);
      if (!described) await new Promise((r) => setTimeout(r, 50));
    }
    expect(described?.spec.intervals?.[0]?.every).toBe(3_600_000);
    const usage = await svc.call('GET', `${base('hourly')}/usage`, { headers: bearer(dev) });
    expect(usage.body.data.emailConfigured).toBe(true);
    expect(new Date(usage.body.data.nextScheduledRun).getTime() % 3_600_000).toBe(0);
    await handle.delete();
  });
});

describe('expressions: a budget, and off the event loop', () => {
  const fiveDeep = (list: string) => `=len(map(${list}, map(${list}, map(${list}, map(${list}, map(${list}, item))))))`;
  const tags = Array.from({ length: 35 }, (_, i) => `t${i}`);

  it('refuses map nested five deep at deploy (expression_too_costly), with its path', async () => {
    const workflow = {
      steps: [people, { id: 'deep', kind: 'compute', op: 'per-row', from: '=steps.people', fields: { n: fiveDeep('steps.people') } }],
    };
    const res = await svc.call('POST', `${base('deep')}/versions`, {
      body: bundle('deep', '1.0.0', { manifest: { sdk: ['semantic'], workflow } }),
      headers: bearer(dev),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.details.problems).toEqual([
      expect.objectContaining({ path: 'manifest.workflow.steps[1].fields.n', code: 'expression_too_costly' }),
    ]);
  });

  it('a run whose step runs out of budget fails that step with the budget error (the run is failed, not retried)', async () => {
    const workflow = {
      input: { l: { type: 'number[]', required: true } },
      steps: [
        people,
        {
          id: 'cube',
          kind: 'compute',
          op: 'per-row',
          from: '=steps.people',
          fields: { n: '=sum(map(input.l, sum(map(input.l, sum(map(input.l, item))))))' },
        },
      ],
    };
    await release(svc, dev, { namespace: 'cell-acme', slug: 'cube', version: '1.0.0', manifest: { sdk: ['semantic'], workflow } });
    const res = await svc.call('POST', `${base('cube')}/apis/run/execute`, {
      body: { input: { l: Array.from({ length: 200 }, (_, i) => i) } },
      headers: bearer(dev),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.run).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^cube: evaluation budget exceeded: (more than 1000000 steps|output larger than 1048576 bytes)/),
    });
    expect(res.body.data.run.steps.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      ['people', 'succeeded'],
      ['cube', 'failed'],
    ]);
  });

  it('five nested maps over a 35-item list in an API: GET /api/v1/health is answered while they are evaluated, and they answer query_invalid', async () => {
    await release(svc, dev, {
      namespace: 'cell-acme',
      slug: 'hostile',
      version: '1.0.0',
      manifest: {
        exports: [
          {
            name: 'boom',
            title: 'Boom',
            kind: 'query',
            type: 'sales.Order',
            input: { tags: { type: 'text[]', required: true } },
            where: { region: fiveDeep('input.tags') },
          },
        ],
      },
    });
    const spend = vi.spyOn(EvaluationBudget.prototype, 'spend');
    const order: string[] = [];
    // Several, queued on the expression threads, so the last is still being evaluated when the health check goes.
    const hostile = Array.from({ length: 4 }, () =>
      svc.call('POST', `${base('hostile')}/apis/boom/execute`, { body: { input: { tags } }, headers: bearer(dev) }).then((res) => {
        order.push('hostile');
        return res;
      }),
    );
    const settled = Promise.all(hostile);
    let done = false;
    void settled.then(() => (done = true));
    // Wait (by turns of the event loop, not time) until a thread is evaluating one of them.
    while (expressionThreads.running === 0 && !done) await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    const health = await svc.call('GET', '/api/v1/health');
    order.push('health');
    expect(health.status).toBe(200);
    const answers = await settled;
    expect(order).not.toEqual(['hostile', 'hostile', 'hostile', 'hostile', 'health']);
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'query_invalid',
        message: expect.stringContaining('evaluation budget exceeded'),
        details: { errorName: 'ExpressionBudgetExceeded', api: 'boom' },
      });
    }
    // The threads counted every step; the event loop counted none.
    expect(spend).not.toHaveBeenCalled();
    spend.mockRestore();
  });
});
