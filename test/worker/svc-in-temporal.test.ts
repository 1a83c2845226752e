import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEMPORAL_CODEC_PATH } from '../../api/admin/routes.ts';
import { getApp } from '../../domain/apps/repository.ts';
import { AesGcmPayloadCodec, generatedKeyFile, type Payload } from '../../infra/temporal-codec/payload-codec.ts';
import { appScheduleId, SCHEDULE_RECONCILE } from '../../workflows/contract.ts';
import { release } from '../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies, signIn } from '../support/identity.ts';
import { startTestService, TEST_OPERATOR, type TestService } from '../support/service.ts';

// What svc leaves in Temporal, read the way the Web UI and an operator see it: payloads sealed
// with svc's key (the raw gRPC history), decoded only by the codec endpoint and only for platform
// staff; and app schedules whose state (paused, deleted) in Temporal is what svc shows, with the
// reconcile schedule making a deleted one again. Role all: the embedded Temporal in the process.

let svc: TestService;
let op: string;
let dev: string;
const base = '/api/v1/developer/apps/cell-acme/people';
const EMAIL = 'dana@example.com';
let workflowId: string;

beforeAll(async () => {
  svc = await startTestService({ role: 'all', env: { SVC_RUN_START_WAIT_MS: '30000' } });
  ({ op } = await seedCompanies(svc));
  dev = await passwordKey(svc, 'dana');
  const people = { id: 'people', kind: 'use', capability: 'platform.accounts', input: { role: 'developer' } };
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'people',
    version: '1.0.0',
    manifest: {
      sdk: ['semantic'],
      workflow: { description: 'Lists the developers.', input: {}, steps: [people], trigger: { schedule: { every: '1h' } } },
    },
  });
  const run = await svc.call('POST', `${base}/apis/run/execute`, { body: { input: {} }, headers: bearer(dev) });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  expect(run.body.data.run.status).toBe('succeeded');
  workflowId = run.body.data.run.workflowId;
  // svc's record closes inside the run's last local activity, before its marker reaches the history.
  await svc.temporal!.client.workflow.getHandle(workflowId).result();
}, 120_000);
afterAll(() => svc?.close());
beforeEach(() => resetRateLimits(svc));

/**
 * Every payload in a raw (undecoded) gRPC answer, except search attributes (Temporal indexes them,
 * so they are never sealed) and the SDK's patch markers (`core_patch`: a patch's name, written by
 * the SDK's core past the payload codec).
 */
/** What the SDK's core writes in clear in a local activity's marker (`data`): its own bookkeeping, never an input or a result. */
const LOCAL_ACTIVITY_BOOKKEEPING = ['activity_id', 'activity_type', 'attempt', 'backoff', 'complete_time', 'original_schedule_time', 'seq'];

/** The `data` details of the run's local activity markers, parsed (their `result` is a payload like any other). */
function localActivityBookkeeping(value: unknown, found: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return found;
  const marker = value as { markerName?: unknown; details?: Record<string, { payloads?: Payload[] }> };
  if (marker.markerName === 'core_local_activity')
    for (const p of marker.details?.data?.payloads ?? []) found.push(JSON.parse(Buffer.from(p.data!).toString()));
  else for (const v of Object.values(value)) localActivityBookkeeping(v, found);
  return found;
}

function payloadsIn(value: unknown, found: Payload[] = []): Payload[] {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return found;
  const marker = value as { markerName?: unknown; details?: Record<string, unknown> };
  if (marker.markerName === 'core_patch') return found;
  if (marker.markerName === 'core_local_activity') {
    for (const [key, v] of Object.entries(marker.details ?? {})) if (key !== 'data') payloadsIn(v, found);
    return found;
  }
  const metadata = (value as Payload).metadata;
  if (metadata && metadata.encoding instanceof Uint8Array) found.push(value as Payload);
  else for (const [key, v] of Object.entries(value)) if (key !== 'searchAttributes') payloadsIn(v, found);
  return found;
}

/** Every byte string of a raw gRPC answer, joined. */
function bytesIn(value: unknown, found: Buffer[] = []): Buffer {
  if (value instanceof Uint8Array) found.push(Buffer.from(value));
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) bytesIn(v, found);
  return Buffer.concat(found);
}

const rawHistory = async () =>
  svc.temporal!.client.workflowService.getWorkflowExecutionHistory({ namespace: svc.temporal!.namespace, execution: { workflowId } });
const wire = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});
const decode = (payloads: unknown[], headers: Record<string, string>) =>
  svc.call('POST', `${TEMPORAL_CODEC_PATH}/decode`, { body: { payloads }, headers });
const uiOrigin = () => new URL(svc.temporal!.uiUrl!).origin;

describe('payloads in Temporal', () => {
  it('are sealed in the run’s history (binary/encrypted, no plaintext email); svc’s own client reads the result', async () => {
    const history = await rawHistory();
    const payloads = payloadsIn(history);
    // Input, activity inputs and results (local activities' results in their markers), the run's result.
    expect(payloads.length).toBeGreaterThan(4);
    expect(new Set(payloads.map((p) => Buffer.from(p.metadata!.encoding!).toString()))).toEqual(new Set(['binary/encrypted']));
    // The run's record, its use step and its close ran as one local activity: its marker's clear part is the core's bookkeeping only.
    const bookkeeping = localActivityBookkeeping(history);
    expect(bookkeeping.map((b) => b.activity_type)).toEqual(['beginRunWithSteps']);
    for (const b of bookkeeping) expect(Object.keys(b).sort()).toEqual(LOCAL_ACTIVITY_BOOKKEEPING);
    expect(bytesIn(history).includes(EMAIL)).toBe(false);

    const result = await svc.temporal!.client.workflow.getHandle(workflowId).result();
    expect(result).toMatchObject({ status: 'succeeded', output: { people: [expect.objectContaining({ email: EMAIL })] } });
  });

  it('decode for an operator key and a staff web session (from the Web UI’s origin, with CORS); 401/403 for everyone else', async () => {
    const completed = (await rawHistory()).history!.events!.at(-1)!.workflowExecutionCompletedEventAttributes!;
    const sealed = completed.result!.payloads!.map((p) => wire(p as Payload));
    expect(Buffer.from(sealed[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');

    const byKey = await decode(sealed, bearer(op));
    expect(byKey.status, JSON.stringify(byKey.body)).toBe(200);
    const [clear] = byKey.body.payloads as { metadata: Record<string, string>; data: string }[];
    expect(Buffer.from(clear!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(Buffer.from(clear!.data, 'base64').toString()).toContain(EMAIL);

    const staff = await signIn(svc, TEST_OPERATOR.login, TEST_OPERATOR.password);
    const bySession = await decode(sealed, { cookie: staff, origin: uiOrigin(), 'x-namespace': 'default' });
    expect(bySession.status, JSON.stringify(bySession.body)).toBe(200);
    expect(bySession.body).toEqual(byKey.body);
    expect(bySession.headers.get('access-control-allow-origin')).toBe(uiOrigin());
    expect(bySession.headers.get('access-control-allow-credentials')).toBe('true');

    const developerSession = await decode(sealed, { cookie: await signIn(svc, 'dana'), origin: uiOrigin() });
    expect([developerSession.status, developerSession.body.error?.code]).toEqual([403, 'forbidden']);
    const developerKey = await decode(sealed, bearer(dev));
    expect([developerKey.status, developerKey.body.error?.code]).toEqual([403, 'forbidden']);
    const anonymous = await decode(sealed, {});
    expect([anonymous.status, anonymous.body.error?.code]).toEqual([401, 'unauthorized']);
  });

  it('answers the Web UI’s preflight for its origin only', async () => {
    const preflight = (origin: string) =>
      svc.call('OPTIONS', `${TEMPORAL_CODEC_PATH}/decode`, {
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
      });
    const ui = await preflight(uiOrigin());
    expect(ui.status).toBe(204);
    expect(ui.headers.get('access-control-allow-origin')).toBe(uiOrigin());
    expect(ui.headers.get('access-control-allow-credentials')).toBe('true');
    expect(ui.headers.get('access-control-allow-headers')).toContain('x-namespace');
    const other = await preflight('http://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a payload sealed with a key the service lacks: 422 payload_undecodable naming the key', async () => {
    const [foreign] = await new AesGcmPayloadCodec([{ id: 'elsewhere', key: randomBytes(32) }]).encode([
      { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"x"') },
    ]);
    const res = await decode([wire(foreign!)], bearer(op));
    expect([res.status, res.body.error?.code]).toEqual([422, 'payload_undecodable']);
    expect(res.body.error.message).toMatch(/"elsewhere", which this process does not have/);
  });

  it('the embedded Web UI listens on loopback and is pointed at the codec endpoint; the state and key files are the owner’s only', async () => {
    expect(svc.temporal!.uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const settings = (await (await fetch(`${svc.temporal!.uiUrl}/api/v1/settings`)).json()) as { Codec: Record<string, unknown> };
    expect(settings.Codec).toMatchObject({ Endpoint: `${svc.addresses.baseUrl}${TEMPORAL_CODEC_PATH}`, IncludeCredentials: true });
    const stateFile = svc.temporal!.embeddedStateFile!;
    expect((await stat(stateFile)).mode & 0o777).toBe(0o600);
    const dataDir = path.dirname(path.dirname(stateFile));
    expect((await stat(generatedKeyFile(dataDir))).mode & 0o777).toBe(0o600);
  });
});

describe('svc’s runs and schedules as the Web UI shows them', () => {
  const temporal = () => svc.temporal!.client;
  const labelsOf = (attributes: { getAll(): { key: { name: string }; value: unknown }[] }) =>
    Object.fromEntries(
      attributes
        .getAll()
        .filter((p) => p.key.name.startsWith('Svc'))
        .map((p) => [p.key.name, p.value]),
    );
  const found = async (query: string) => {
    const ids: string[] = [];
    for await (const w of temporal().workflow.list({ query })) ids.push(w.workflowId);
    return ids;
  };

  it('an API run: found by svc’s run id, labelled with company, app, kind and version; the run list shows its Temporal run id', async () => {
    const list = await svc.call('GET', `${base}/workflow-runs`, { headers: bearer(dev) });
    const run = (list.body.data.runs as { id: string; workflowId: string; temporalRunId: string | null; trigger: string }[]).find(
      (r) => r.workflowId === workflowId,
    )!;
    expect(await found(`SvcRunId = '${run.id}'`)).toEqual([workflowId]);
    const described = await temporal().workflow.getHandle(workflowId).describe();
    expect(run.temporalRunId).toBe(described.runId);
    expect(labelsOf(described.typedSearchAttributes)).toEqual({
      SvcKind: 'app-run',
      SvcCellId: 'cell-acme',
      SvcAppSlug: 'people',
      SvcVersion: '1.0.0',
      SvcRunId: run.id,
    });
    // The memo is a payload, sealed like the others; svc's client (and the UI through the codec endpoint) reads it.
    expect(described.memo).toEqual({
      kind: 'app-run',
      company: 'cell-acme',
      companyName: 'Acme',
      app: 'people',
      version: '1.0.0',
      runId: run.id,
    });
    expect(await found(`SvcCellId = 'cell-acme' AND SvcAppSlug = 'people' AND SvcKind = 'app-run' AND SvcVersion = '1.0.0'`)).toContain(
      workflowId,
    );
  });

  it('a reset of svc’s own run (as the Web UI’s Reset dialog asks it) makes a run that completes; the run list follows it', async () => {
    const handle = temporal().workflow.getHandle(workflowId);
    const before = await handle.describe();
    const firstTask = (await handle.fetchHistory()).events!.find((e) => e.workflowTaskCompletedEventAttributes)!;
    const { runId } = await temporal().workflowService.resetWorkflowExecution({
      namespace: svc.temporal!.namespace,
      workflowExecution: { workflowId, runId: before.runId },
      workflowTaskFinishEventId: firstTask.eventId,
      reason: 'reset from the Web UI',
      requestId: crypto.randomUUID(),
    });
    expect(runId).not.toBe(before.runId);
    expect(await temporal().workflow.getHandle(workflowId, runId!).result()).toMatchObject({ status: 'succeeded' });
    const listed = await svc.call('GET', `${base}/workflow-runs`, { headers: bearer(dev) });
    const run = (listed.body.data.runs as { workflowId: string; temporalRunId: string }[]).find((r) => r.workflowId === workflowId)!;
    expect(run.temporalRunId).toBe(runId);
  });

  it('an app’s schedule and its runs, and the platform’s own schedules, carry their labels', async () => {
    const app = await getApp(svc.database.db, 'cell-acme', 'people');
    const handle = temporal().schedule.getHandle(appScheduleId(app.id));
    await expect
      .poll(
        () =>
          handle.describe().then(
            () => true,
            () => false,
          ),
        { timeout: 20_000 },
      )
      .toBe(true);
    const schedule = await handle.describe();
    expect(labelsOf(schedule.typedSearchAttributes)).toEqual({
      SvcKind: 'app-schedule',
      SvcCellId: 'cell-acme',
      SvcAppSlug: 'people',
      SvcVersion: '1.0.0',
    });
    expect(schedule.memo).toEqual({ kind: 'app-schedule', company: 'cell-acme', companyName: 'Acme', app: 'people', version: '1.0.0' });
    // A run the schedule starts: the action's labels, then svc's run id once the run has begun.
    const taken = schedule.info.numActionsTaken;
    await handle.trigger();
    await expect.poll(async () => (await handle.describe()).info.numActionsTaken, { timeout: 20_000 }).toBeGreaterThan(taken);
    const started = (await handle.describe()).info.recentActions.at(-1)!.action.workflow;
    const run = temporal().workflow.getHandle(started.workflowId, started.firstExecutionRunId);
    const { runId } = (await run.result()) as { runId: string };
    expect(labelsOf((await run.describe()).typedSearchAttributes)).toEqual({
      SvcKind: 'app-run',
      SvcCellId: 'cell-acme',
      SvcAppSlug: 'people',
      SvcVersion: '1.0.0',
      SvcRunId: runId,
    });
    expect(await found(`SvcRunId = '${runId}'`)).toEqual([started.workflowId]);
    const reconcile = await temporal().schedule.getHandle(SCHEDULE_RECONCILE.scheduleId).describe();
    expect(labelsOf(reconcile.typedSearchAttributes)).toEqual({ SvcKind: 'maintenance' });
  });
});

describe('app schedules as Temporal holds them', () => {
  const usage = async () => {
    const res = await svc.call('GET', `${base}/usage`, { headers: bearer(dev) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as {
      nextScheduledRun: string | null;
      schedule: { state: string; note: string | null; nextActionTimes: string[] };
    };
  };
  const appSchedule = async () =>
    svc.temporal!.client.schedule.getHandle(appScheduleId((await getApp(svc.database.db, 'cell-acme', 'people')).id));
  /** Starts a reconcile pass through its own Schedule (as its interval would) and waits for it to finish. */
  const reconcileNow = async () => {
    const handle = svc.temporal!.client.schedule.getHandle(SCHEDULE_RECONCILE.scheduleId);
    const taken = (await handle.describe()).info.numActionsTaken;
    await handle.trigger();
    await expect.poll(async () => (await handle.describe()).info.numActionsTaken, { timeout: 20_000 }).toBeGreaterThan(taken);
    const started = (await handle.describe()).info.recentActions.at(-1)!.action;
    return svc.temporal!.client.workflow.getHandle(started.workflow.workflowId, started.workflow.firstExecutionRunId).result();
  };

  it('an active schedule shows Temporal’s next action times', async () => {
    const handle = await appSchedule();
    // Made by the relay after the publish.
    await expect
      .poll(
        () =>
          handle.describe().then(
            () => true,
            () => false,
          ),
        { timeout: 20_000 },
      )
      .toBe(true);
    const described = await handle.describe();
    const view = await usage();
    expect(view.schedule).toEqual({
      state: 'active',
      note: null,
      nextActionTimes: described.info.nextActionTimes.map((t) => t.toISOString()),
    });
    expect(view.nextScheduledRun).toBe(view.schedule.nextActionTimes[0]);
  });

  it('triggered in Temporal: the run is in svc’s run list as a schedule run', async () => {
    await (await appSchedule()).trigger();
    const triggers = async () =>
      ((await svc.call('GET', `${base}/workflow-runs`, { headers: bearer(dev) })).body.data.runs as { trigger: string; status: string }[])
        .filter((r) => r.trigger === 'schedule')
        .map((r) => r.status);
    await expect.poll(triggers, { timeout: 30_000 }).toEqual(['succeeded']);
  });

  it('paused in Temporal: shown paused with its note and no next run, and the reconciler leaves it paused', async () => {
    const handle = await appSchedule();
    await handle.pause('paused from the Web UI');
    expect(await usage()).toMatchObject({ nextScheduledRun: null, schedule: { state: 'paused', note: 'paused from the Web UI' } });
    expect(await reconcileNow()).toMatchObject({ apps: { failed: {} } });
    expect((await handle.describe()).state.paused).toBe(true);
    await handle.unpause('resumed');
    expect((await usage()).schedule.state).toBe('active');
  });

  it('deleted in Temporal: shown missing, then made again by the reconcile schedule’s run', async () => {
    await (await appSchedule()).delete();
    expect(await usage()).toMatchObject({ nextScheduledRun: null, schedule: { state: 'missing', nextActionTimes: [] } });
    await reconcileNow();
    const described = await (await appSchedule()).describe();
    expect(described.spec.intervals?.[0]?.every).toBe(3_600_000);
    expect(await usage()).toMatchObject({
      schedule: { state: 'active' },
      nextScheduledRun: described.info.nextActionTimes[0]!.toISOString(),
    });
  });

  it('the reconcile schedule runs every five minutes', async () => {
    const described = await svc.temporal!.client.schedule.getHandle(SCHEDULE_RECONCILE.scheduleId).describe();
    expect(described.spec.intervals?.[0]?.every).toBe(5 * 60_000);
  });
});
