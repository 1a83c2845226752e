import { type Client, ScheduleOverlapPolicy } from '@temporalio/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appChangeTriggerWorkflowId, appScheduledRunWorkflowId } from '../../schemas/workflow-keys.ts';
import { appScheduleId } from '../../workflows/contract.ts';
import { injected, rawGet, release, ticketCookie } from '../support/hosting.ts';
import { bearer, browser, passwordKey, seedCompanies, signIn } from '../support/identity.ts';
import { SALES } from '../support/ontology.ts';
import { ACTIONS } from '../support/ontology-actions.ts';
import { initializeBody } from '../support/provisioning.ts';
import { openSse } from '../support/sse.ts';
import { type ApiProcess, type Cluster, startCluster } from './harness.ts';

// What one process does, the others see: two API processes (A and B) and two workers on one
// PostgreSQL, one Temporal server and one S3 bucket, each test acting through A and checking
// through B. One cluster for the file: its start-up is the cost.

let cluster: Cluster;
let a: ApiProcess;
let b: ApiProcess;
let temporal: Client;
let op: string;
let dev: string;
let accounts: Record<string, string>;

beforeAll(async () => {
  cluster = await startCluster();
  [a, b] = cluster.api;
  console.log(`cluster ready in ${cluster.startupMs} ms`);
  temporal = cluster.temporal;
  ({ op, accounts } = await seedCompanies(a));
  dev = await passwordKey(a, 'dana');
}, 180_000);
afterAll(async () => {
  if (!cluster) return;
  await cluster.close();
  // Each svc process shut down gracefully on close's SIGTERM (none needed its SIGKILL).
  expect(await Promise.all([...cluster.api, ...cluster.workers].map((p) => p.exited))).toEqual([0, 0, 0, 0]);
});

/** Workflow executions of the server whose id passes `match`, every run counted. */
async function runsOf(match: (workflowId: string) => boolean) {
  const runs: { workflowId: string; status: string }[] = [];
  for await (const run of temporal.workflow.list())
    if (match(run.workflowId)) runs.push({ workflowId: run.workflowId, status: run.status.name });
  return runs;
}

describe('credentials across processes', () => {
  it('a key revoked through A is refused by B at once', async () => {
    const key = await passwordKey(a, 'mo');
    expect((await b.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).status).toBe(200); // now in B's cache
    const keyId = (await a.call('GET', '/api/v1/developer/keys', { headers: bearer(key) })).body.data.keys[0].keyId;
    const revoked = await a.call('DELETE', `/api/v1/developer/keys/${keyId}`, { headers: bearer(key) });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    const refused = await b.call('GET', '/api/v1/developer/me', { headers: bearer(key) });
    expect([refused.status, refused.body.error?.code]).toEqual([401, 'unauthorized']);
  });

  it('a share revoked through A ends on B the tickets opened through it', async () => {
    await release(a, dev, { namespace: 'cell-acme', slug: 'secret', version: '1.0.0', manifest: { auth: { access: 'restricted' } } });
    const share = await a.call('POST', '/api/v1/developer/shares', {
      body: { namespace: 'cell-acme', slug: 'secret', audience: 'users', account: 'gus' },
      headers: bearer(dev),
    });
    expect(share.status, JSON.stringify(share.body)).toBe(201);
    const cookie = await signIn(b, 'gus');
    const page = await rawGet(`${b.addresses.productionBase}/cell-acme/apps/secret`, { cookie });
    expect(page.status).toBe(200);
    const { ticket } = injected(page.text);
    expect((await b.call('GET', '/api/v1/developer/auth/me', { headers: bearer(ticket) })).status).toBe(200);

    const revoked = await a.call('DELETE', `/api/v1/developer/shares/${share.body.data.share.id}?namespace=cell-acme&slug=secret`, {
      headers: bearer(dev),
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect((await b.call('GET', '/api/v1/developer/auth/me', { headers: bearer(ticket) })).status).toBe(401);
    expect((await rawGet(`${b.addresses.productionBase}/cell-acme/apps/secret`, { cookie })).status).toBe(403);
  });

  it('a web session signed out through A is refused by B at once, and the app tickets opened in it end with it', async () => {
    await release(a, dev, { namespace: 'cell-acme', slug: 'lobby', version: '1.0.0' });
    const cookie = await signIn(a, 'mo');
    const page = await rawGet(`${b.addresses.productionBase}/cell-acme/apps/lobby`, { cookie });
    expect(page.status).toBe(200);
    const { ticket } = injected(page.text);
    // Both now in B's cache.
    expect((await b.call('GET', '/api/v1/web/session', { headers: { cookie } })).status).toBe(200);
    expect((await b.call('GET', '/api/v1/developer/auth/me', { headers: bearer(ticket) })).status).toBe(200);

    const out = await a.call('DELETE', '/api/v1/web/sessions/current', { headers: browser(cookie, a) });
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    const refused = await b.call('GET', '/api/v1/web/session', { headers: { cookie } });
    expect([refused.status, refused.body.error?.code]).toEqual([401, 'invalid_session']);
    expect((await b.call('GET', '/api/v1/developer/auth/me', { headers: bearer(ticket) })).status).toBe(401);
  });
});

describe('version files in S3', () => {
  it('an upload through A is served by B from S3, and the database holds no bytes', async () => {
    const content = 'console.log("uploaded through A");';
    await release(a, dev, {
      namespace: 'cell-acme',
      slug: 'files',
      version: '1.0.0',
      files: [
        { path: 'index.html', encoding: 'utf8', content: '<!doctype html><title>files</title>' },
        { path: 'app.js', encoding: 'utf8', content },
      ],
    });
    const page = await rawGet(`${b.addresses.productionBase}/cell-acme/apps/files`, { cookie: await signIn(b, 'dana') });
    expect(page.status).toBe(200);
    const file = await rawGet(`${injected(page.text).base}app.js`, { cookie: ticketCookie(page) });
    expect([file.status, file.text]).toEqual([200, content]);
    const stored = await cluster.db
      .selectFrom('version_files')
      .innerJoin('app_versions', 'app_versions.id', 'version_files.version_id')
      .innerJoin('apps', 'apps.id', 'app_versions.app_id')
      .select('version_files.blob_sha256')
      .where('apps.slug', '=', 'files')
      .where('version_files.path', '=', 'app.js')
      .executeTakeFirstOrThrow();
    expect(cluster.s3.puts).toContain(`cluster/sha256/${stored.blob_sha256.toString('hex')}`);
    expect(await cluster.db.selectFrom('blobs').select('sha256').execute()).toEqual([]);
  });
});

describe('workflows across two workers', () => {
  it('a company initialization asked for through A and B at once, polled through B, runs once and completes', async () => {
    const body = initializeBody('cell-cluster', `${cluster.companyRoot}/cluster`);
    const asked = await Promise.all(
      [a, b].map((api) => api.call('POST', '/api/v1/control-plane/companies/initialize', { body, headers: bearer(op) })),
    );
    for (const res of asked) expect(res.status, JSON.stringify(res.body)).toBe(202);
    const statusPath = '/api/v1/control-plane/companies/cell-cluster/provisioning-status';
    await expect
      .poll(async () => (await b.call('GET', statusPath, { headers: bearer(op) })).body.data.status, { timeout: 30_000, interval: 100 })
      .toBe('completed');
    // Provisioning records its status a moment before Temporal closes the run.
    await expect
      .poll(() => runsOf((id) => id === 'company-init:cell-cluster'), { timeout: 10_000, interval: 100 })
      .toEqual([{ workflowId: 'company-init:cell-cluster', status: 'COMPLETED' }]);
    const ids = new Set(asked.map((res) => res.body.data.runId).filter((id) => id !== null));
    expect(ids.size).toBeLessThanOrEqual(1);
  }, 60_000);

  it('an app’s Temporal Schedule starts one run per firing with two workers reconciling it', async () => {
    const workflow = {
      description: 'Lists the developers every five minutes.',
      steps: [{ id: 'people', kind: 'use', capability: 'platform.accounts', input: { role: 'developer' } }],
      trigger: { schedule: { every: '5m' } },
    };
    await release(a, dev, { namespace: 'cell-acme', slug: 'ticker', version: '1.0.0', manifest: { sdk: ['semantic'], workflow } });
    const app = await cluster.db.selectFrom('apps').select('id').where('slug', '=', 'ticker').executeTakeFirstOrThrow();
    const schedule = temporal.schedule.getHandle(appScheduleId(app.id));
    // Both workers reconcile the app's triggers; the schedule is made once, at the shortest period allowed.
    await expect.poll(async () => (await schedule.describe().catch(() => undefined))?.spec.intervals?.[0]?.every).toBe(300_000);

    const runsPath = '/api/v1/developer/apps/cell-acme/ticker/workflow-runs';
    const finished = async () =>
      ((await b.call('GET', runsPath, { headers: bearer(dev) })).body.data.runs as { status: string }[]).map((r) => r.status);
    // The two periods before this one, as the schedule fires them (five minutes is the shortest period allowed).
    const period = 300_000;
    const now = Math.floor(Date.now() / period) * period;
    await schedule.backfill({ start: new Date(now - 2 * period), end: new Date(now - 1), overlap: ScheduleOverlapPolicy.ALLOW_ALL });
    await expect.poll(finished, { timeout: 30_000, interval: 100 }).toEqual(['succeeded', 'succeeded']);
    // The run records its outcome in its last activity, a moment before Temporal closes it.
    const started = async () => (await runsOf((id) => id.startsWith(appScheduledRunWorkflowId(app.id)))).map((r) => r.status);
    await expect.poll(started, { timeout: 10_000, interval: 100 }).toEqual(['COMPLETED', 'COMPLETED']);
    expect(await cluster.db.selectFrom('workflow_runs').select('id').where('app_id', '=', app.id).execute()).toHaveLength(2);
    await schedule.delete();
  }, 90_000);
});

describe('a change trigger across two workers', () => {
  it('changes through A and B within the cooldown make one run, started once', async () => {
    const defined = await a.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) });
    expect(defined.status, JSON.stringify(defined.body)).toBe(200);
    const workflow = {
      description: 'Lists the developers when orders change.',
      steps: [{ id: 'people', kind: 'use', capability: 'platform.accounts', input: { role: 'developer' } }],
      // The shortest cooldown allowed: the run starts a minute after the first change.
      trigger: { change: { types: ['sales.Order'], cooldown: '1m' } },
    };
    await release(a, dev, { namespace: 'cell-acme', slug: 'watcher', version: '1.0.0', manifest: { sdk: ['semantic'], workflow } });
    const app = await cluster.db.selectFrom('apps').select('id').where('slug', '=', 'watcher').executeTakeFirstOrThrow();
    const trigger = temporal.workflow.getHandle(appChangeTriggerWorkflowId(app.id));
    await expect.poll(async () => (await trigger.describe().catch(() => undefined))?.status.name, { timeout: 30_000 }).toBe('RUNNING');

    const importOrder = (api: ApiProcess, number: number) =>
      api.call('POST', '/api/v1/ontologies/cell-acme/objects/sales.Order/import', {
        body: [{ number, amount: 10, paid: false }],
        headers: bearer(dev),
      });
    expect((await importOrder(a, 1)).body.data).toMatchObject({ created: 1 });
    expect((await importOrder(b, 2)).body.data).toMatchObject({ created: 1 });

    const runsPath = '/api/v1/developer/apps/cell-acme/watcher/workflow-runs';
    const finished = async () =>
      ((await b.call('GET', runsPath, { headers: bearer(dev) })).body.data.runs as { status: string; trigger: string }[]).map(
        (r) => `${r.trigger} ${r.status}`,
      );
    await expect.poll(finished, { timeout: 120_000, interval: 500 }).toEqual(['change succeeded']);
    const started = () => runsOf((id) => id.startsWith(`app-run:${app.id}:change:`));
    await expect.poll(async () => (await started()).map((r) => r.status), { timeout: 10_000 }).toEqual(['COMPLETED']);
    expect(await cluster.db.selectFrom('workflow_runs').select('id').where('app_id', '=', app.id).execute()).toHaveLength(1);
  }, 180_000);
});

describe('rate limits across processes', () => {
  it('an account’s app-open budget is the cluster’s, not each process’s', async () => {
    const LIMIT = 30; // app-open: 30 a minute per account and app
    const cookie = await signIn(a, 'mo');
    const app = await cluster.db.selectFrom('apps').select('id').where('slug', '=', 'files').executeTakeFirstOrThrow();
    // Each open is judged anew and issues a ticket (the budget's subject): any change ends the reuse
    // of an open in every process, here a notification alone.
    const open = async (api: ApiProcess) => {
      await sql`SELECT pg_notify('svc_principals', '')`.execute(cluster.db);
      return rawGet(`${api.addresses.productionBase}/cell-acme/apps/files`, { cookie });
    };
    // More than two windows' worth, alternating A and B: some are refused even if the minute turns in between.
    const answers = [];
    for (let i = 0; i < 2 * LIMIT + 1; i++) answers.push(await open(i % 2 === 0 ? a : b));
    expect(answers.filter((r) => r.status !== 200 && r.status !== 429).map((r) => [r.status, r.text])).toEqual([]);
    const opened = answers.filter((r) => r.status === 200).length;
    const windows = await cluster.db
      .selectFrom('rate_limit_hits')
      .select('hits')
      .where('bucket', '=', `app-open:${accounts.mo}:${app.id}`)
      .execute();
    // Per process, each would have let 30 a window through: 60 across both.
    expect(opened).toBe(windows.reduce((sum, w) => sum + Math.min(w.hits, LIMIT), 0));
    expect(opened).toBeLessThanOrEqual(windows.length * LIMIT);
    expect(opened).toBeLessThan(answers.length);
  });
});

describe('auto-refresh across processes', () => {
  it('an action applied through A refreshes a module page streamed from B', async () => {
    for (const [path, body] of [
      ['types', SALES],
      ['actionTypes', ACTIONS],
    ] as const) {
      const res = await a.call('POST', `/api/v1/developer/semantic/cell-acme/${path}`, { body, headers: bearer(dev) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const definition = {
      title: 'Customers',
      pages: [
        {
          id: 'list',
          title: 'List',
          autoRefresh: { enabled: true, intervalSeconds: 10 },
          widgets: [{ id: 'customers', type: 'table', objectSet: { objectType: 'sales.Customer' } }],
        },
      ],
    };
    const made = await a.call('POST', '/api/v1/workshop/modules', { body: { name: 'Customers', definition }, headers: bearer(dev) });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const rid = made.body.data.rid;
    expect((await a.call('POST', `/api/v1/workshop/modules/${rid}/versions/1/publish`, { headers: bearer(dev) })).status).toBe(200);
    const stream = await openSse(`${b.addresses.baseUrl}/api/v1/workshop/modules/${rid}/autoRefresh?page=list`, undefined, bearer(dev));
    expect(stream.status).toBe(200);
    expect((await stream.next()).event).toBe('ready');
    const applied = await a.call('POST', '/api/v1/ontologies/cell-acme/actions/sales.addCustomer/apply', {
      body: { parameters: { id: 'cross-process', name: 'Across' } },
      headers: bearer(dev),
    });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const refresh = await stream.next();
    expect(refresh).toMatchObject({ event: 'refresh', data: { objectTypes: ['sales.Customer'] } });
    stream.close();
  });
});
