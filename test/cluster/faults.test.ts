import fs from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtpSink } from '../support/app-workflows.ts';
import { bundle } from '../support/bundles.ts';
import { injected, rawGet, release, ticketCookie } from '../support/hosting.ts';
import { bearer, passwordKey, seedCompanies, signIn } from '../support/identity.ts';
import { initializeBody } from '../support/provisioning.ts';
import { type ApiProcess, type Cluster, type ClusterProcess, startCluster } from './harness.ts';

// Faults of the scaled-out topology, each followed by a "nothing lost" check: a worker killed in
// the middle of its activities. One cluster for the file (its start-up is the cost); a test that
// kills or stops a process starts it again before it ends, so the next one finds the whole cluster.

let cluster: Cluster;
let smtp: SmtpSink;
let op: string;
let dev: string;
const api = (i: 0 | 1): ApiProcess => cluster.api[i];
/** The API process that is not `svc`. */
const otherThan = (svc: ApiProcess): ApiProcess => cluster.api.find((p) => p !== svc)!;

beforeAll(async () => {
  smtp = await startSmtpSink();
  // A rolling restart's process serves on for 2 s after SIGTERM, its readiness failing: 40 of the
  // test balancer's probe intervals, room for a loaded machine's slow probe.
  cluster = await startCluster({ env: { SVC_SMTP_URL: smtp.url, SVC_SHUTDOWN_DELAY_MS: '2000' } });
  console.log(`cluster ready in ${cluster.startupMs} ms`);
  ({ op } = await seedCompanies(api(0)));
  dev = await passwordKey(api(0), 'dana');
}, 180_000);
afterAll(async () => {
  await cluster?.close();
  await smtp?.stop();
});

/** A session of its own on the shared database, to hold locks that make a worker wait where a test wants it. */
async function lockHolder() {
  const client = new pg.Client({ connectionString: cluster.databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  return {
    pid,
    query: (text: string, values?: unknown[]) => client.query(text, values),
    /** Ends the transaction (its locks go) and the session. */
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

/** Database sessions other than `except` waiting for a lock. */
async function waitingForLocks(except: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> ${except}`.execute(cluster.db);
  return rows[0]!.n;
}

async function stop(p: ClusterProcess, signal: NodeJS.Signals): Promise<void> {
  p.child.kill(signal);
  await p.exited;
}

interface Answer {
  status: number;
  code?: string;
  /** The created thing's id, for a 201. */
  id?: string;
}

/**
 * Bounded load: `count` requests, `concurrency` at a time, alternating between the two API
 * processes; resolves once every one has answered (a request that hangs hangs the test).
 */
async function load(count: number, concurrency: number, request: (svc: ApiProcess, i: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        answers[i] = await request(api((i % 2) as 0 | 1), i);
      }
    }),
  );
  return answers;
}

/**
 * A request as a load balancer sends it: to `svc`, or to the other process when `svc` refuses the
 * connection (it has stopped listening: nothing was sent, so any request may go elsewhere).
 * Any other transport failure is an answer with status 0 and its code.
 */
async function balanced(svc: ApiProcess, send: (svc: ApiProcess) => Promise<Answer>): Promise<Answer> {
  const attempt = (target: ApiProcess) =>
    send(target).catch((err: Error & { cause?: { code?: string } }) => ({ status: 0, code: err.cause?.code ?? err.message }));
  const answer = await attempt(svc);
  if (answer.status !== 0 || answer.code !== 'ECONNREFUSED') return answer;
  return attempt(otherThan(svc));
}

/**
 * A load balancer's health check: it probes each API process's readiness every `intervalMs` and
 * sends a request meant for a process out of rotation to the other one. `removals` lists why
 * each process left the rotation (the failing checks, or the transport error).
 */
function healthChecked(intervalMs: number) {
  const out = new Set<ApiProcess>();
  const removals: string[] = [];
  let running = true;
  const probe = async (svc: ApiProcess) => {
    while (running) {
      const res = await svc.call('GET', '/api/v1/health/ready').catch((err: Error & { cause?: { code?: string } }) => ({
        status: 0,
        body: { error: { details: { failing: [err.cause?.code ?? err.message] } } },
      }));
      if (res.status === 200) out.delete(svc);
      else if (!out.has(svc)) {
        out.add(svc);
        removals.push(`${svc.name}: ${res.body?.error?.details?.failing?.join(', ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  };
  const probes = Promise.all(cluster.api.map(probe));
  return {
    route: (svc: ApiProcess) => (out.has(svc) ? otherThan(svc) : svc),
    removals,
    stop: async () => {
      running = false;
      await probes;
    },
  };
}

/** A write every load uses: the operator creates a group in Acme (cheap, and each has its own row to find afterwards). */
const createGroup = (prefix: string) => (svc: ApiProcess, i: number) =>
  balanced(svc, async (target) => {
    const res = await target.call('POST', '/api/v1/admin/groups', {
      body: { organization: 'cell-acme', name: `${prefix}-${i}` },
      headers: bearer(op),
    });
    return { status: res.status, code: res.body?.error?.code, id: res.body?.data?.id };
  });

/** How many answers of each status (and error code). */
const tally = (answers: Answer[]) => {
  const counts: Record<string, number> = {};
  for (const a of answers)
    counts[a.code ? `${a.status} ${a.code}` : String(a.status)] = (counts[a.code ? `${a.status} ${a.code}` : String(a.status)] ?? 0) + 1;
  return counts;
};

/** Every write acknowledged with 201 is in the database. */
async function expectAllPresent(answers: Answer[]): Promise<void> {
  const ids = answers.filter((a) => a.status === 201).map((a) => a.id!);
  const found = ids.length ? await cluster.db.selectFrom('groups').select('id').where('id', 'in', ids).execute() : [];
  expect(found.map((g) => g.id).sort()).toEqual(ids.sort());
}

/** The LISTEN connections of the cluster by name: each process's principal cache, each worker's outbox relay. */
const listeners = async () => {
  const { rows } = await sql<{ name: string }>`
    SELECT application_name AS name FROM pg_stat_activity
    WHERE application_name IN ('svc-principal-cache', 'svc-outbox-relay') ORDER BY 1`.execute(cluster.db);
  return rows.map((r) => r.name);
};

const readiness = async (svc: ApiProcess) => {
  const res = await svc.call('GET', '/api/v1/health/ready');
  return res.status === 200 ? 'ready' : `${res.status} ${res.body?.error?.code} ${res.body?.error?.details?.failing}`;
};

/** Every execution of a workflow id on the Temporal server (a run started twice would show two). */
async function executionsOf(workflowId: string): Promise<string[]> {
  const runs: string[] = [];
  for await (const run of cluster.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(run.status.name);
  return runs;
}

const recipients = ['dana@example.com', 'mo@example.com'];

/**
 * An Acme app whose workflow reads the developers, then emails two people (subject: its slug);
 * returns its id. A test holding `notify:<id>` (the notify step's lock) stops a run inside that step.
 */
async function releaseNotifier(slug: string): Promise<string> {
  const workflow = {
    description: 'Tells two people how many developers there are.',
    steps: [
      { id: 'people', kind: 'use', capability: 'platform.accounts', input: { role: 'developer' } },
      { id: 'tell', kind: 'notify', to: recipients, subject: slug, body: "=concat('developers: ', len(steps.people))", dedupeKey: 'team' },
    ],
  };
  await release(api(0), dev, { namespace: 'cell-acme', slug, version: '1.0.0', manifest: { sdk: ['semantic'], workflow } });
  return (await cluster.db.selectFrom('apps').select('id').where('slug', '=', slug).executeTakeFirstOrThrow()).id;
}

/** Runs the app's workflow through its API; the answer waits for the run a moment (SVC_RUN_START_WAIT_MS). */
const execute = (svc: ApiProcess, slug: string) =>
  svc.call('POST', `/api/v1/developer/apps/cell-acme/${slug}/apis/run/execute`, { body: { input: {} }, headers: bearer(dev) });

/** The statuses of the app's runs, newest first. */
const runStatuses = async (slug: string) => {
  const res = await api(0).call('GET', `/api/v1/developer/apps/cell-acme/${slug}/workflow-runs`, { headers: bearer(dev) });
  return (res.body.data.runs as { status: string }[]).map((r) => r.status);
};

/** The app's one run: one Temporal execution, one record, one message per recipient, each sent once. */
async function expectRunOnce(appId: string, slug: string): Promise<void> {
  const runs = await cluster.db.selectFrom('workflow_runs').selectAll().where('app_id', '=', appId).execute();
  expect(runs).toHaveLength(1);
  await expect.poll(() => executionsOf(runs[0]!.workflow_id), { timeout: 10_000, interval: 100 }).toEqual(['COMPLETED']);
  const messages = await cluster.db
    .selectFrom('workflow_notifications')
    .select(['recipient', 'status'])
    .where('run_id', '=', runs[0]!.id)
    .execute();
  expect(messages.sort((x, y) => x.recipient.localeCompare(y.recipient))).toEqual(
    recipients.map((recipient) => ({ recipient, status: 'sent' })),
  );
  expect(
    smtp.received
      .filter((m) => m.subject === slug)
      .flatMap((m) => m.to)
      .sort(),
  ).toEqual(recipients);
}

describe('a worker killed (SIGKILL) in the middle of its activities', () => {
  it('the other worker completes a company initialization and an app workflow run, and no side effect repeats', async () => {
    const appId = await releaseNotifier('teller');

    // Worker B out of the way: both runs' activities go to worker A, which then dies with them in flight.
    const [workerA, workerB] = cluster.workers;
    await stop(workerB, 'SIGTERM');
    // Worker A will wait inside the folders step (after its first folder) and inside the notify
    // step (before any message): writes to company_folders and the app's notify lock are held here.
    const locks = await lockHolder();
    await locks.query('LOCK TABLE company_folders IN EXCLUSIVE MODE');
    await locks.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`notify:${appId}`]);

    const root = path.join(cluster.companyRoot, 'killed');
    const init = await api(0).call('POST', '/api/v1/control-plane/companies/initialize', {
      body: initializeBody('cell-killed', root),
      headers: bearer(op),
    });
    expect(init.status, JSON.stringify(init.body)).toBe(202);
    const executed = execute(api(1), 'teller');
    await expect.poll(() => waitingForLocks(locks.pid), { timeout: 30_000, interval: 50 }).toBe(2);

    await cluster.restart(workerB.name);
    await stop(workerA, 'SIGKILL');
    await locks.release();
    expect((await executed).status).toBe(202);

    const statusPath = '/api/v1/control-plane/companies/cell-killed/provisioning-status';
    const provisioning = async () => (await api(1).call('GET', statusPath, { headers: bearer(op) })).body.data;
    await expect.poll(async () => (await provisioning()).status, { timeout: 40_000, interval: 200 }).toBe('completed');
    await expect.poll(() => runStatuses('teller'), { timeout: 40_000, interval: 200 }).toEqual(['succeeded']);

    // Nothing twice: one execution of each workflow, one run record, one message per recipient...
    await expect.poll(() => executionsOf('company-init:cell-killed'), { timeout: 10_000, interval: 100 }).toEqual(['COMPLETED']);
    await expectRunOnce(appId, 'teller');
    // ...each folder and profile recorded once, the folders step done again on the other worker
    // (attempt 2), its first folder found as the killed worker left it.
    const status = await provisioning();
    expect(status.folders).toHaveLength(10);
    expect(status.agentProfiles).toHaveLength(10);
    const [record] = await cluster.db
      .selectFrom('provisioning_runs')
      .select('steps')
      .where('workflow_id', '=', 'company-init:cell-killed')
      .execute();
    const folders = record!.steps.find((s) => s.name === 'folders')!;
    expect([folders.status, folders.attempts]).toEqual(['completed', 2]);
    expect(folders.changes.map((c) => c.outcome)).toEqual(['reused', ...Array(9).fill('created')]);
    expect((await fs.readdir(root)).sort()).toEqual([...status.folders.map((f: { name: string }) => f.name), 'agents'].sort());

    await cluster.restart(workerA.name);
  }, 120_000);
});

describe('PostgreSQL stopped and started again under load', () => {
  it('answers 503 while it is down, recovers by itself, and loses nothing', async () => {
    const before = await load(100, 8, createGroup('pg-before'));
    expect(tally(before)).toEqual({ 201: 100 });
    const listening = await listeners();

    await cluster.postgres.stop();
    // The outage lasts as long as these take: every request answers, none waits for the database.
    // (Longer only adds waiting: every connection is already cut, and new ones are refused at once.)
    expect(await Promise.all([readiness(api(0)), readiness(api(1))])).toEqual(Array(2).fill('503 service_unavailable database'));
    const during = await load(100, 8, async (svc, i) =>
      i % 2
        ? createGroup('pg-during')(svc, i)
        : svc.call('GET', '/api/v1/developer/me', { headers: bearer(dev) }).then((r) => ({ status: r.status, code: r.body?.error?.code })),
    );
    expect(tally(during)).toEqual({ '503 service_unavailable': 100 });
    await cluster.postgres.start();

    await expect
      .poll(() => Promise.all([readiness(api(0)), readiness(api(1))]), { timeout: 15_000, interval: 100 })
      .toEqual(['ready', 'ready']);
    const after = await load(100, 8, createGroup('pg-after'));
    expect(tally(after)).toEqual({ 201: 100 });
    await expectAllPresent([...before, ...after]);

    // Every LISTEN connection is back (each process's principal cache, each worker's relay)...
    await expect.poll(listeners, { timeout: 15_000, interval: 100 }).toEqual(listening);
    // ...so a key revoked through A is refused by B, which had it cached.
    const key = await passwordKey(api(0), 'mo');
    expect((await api(1).call('GET', '/api/v1/developer/me', { headers: bearer(key) })).status).toBe(200);
    const keyId = (await api(0).call('GET', '/api/v1/developer/keys', { headers: bearer(key) })).body.data.keys[0].keyId;
    expect((await api(0).call('DELETE', `/api/v1/developer/keys/${keyId}`, { headers: bearer(key) })).status).toBe(200);
    expect((await api(1).call('GET', '/api/v1/developer/me', { headers: bearer(key) })).status).toBe(401);

    // The outbox resumed: an initialization asked for now runs, once.
    const init = await api(1).call('POST', '/api/v1/control-plane/companies/initialize', {
      body: initializeBody('cell-after-pg', path.join(cluster.companyRoot, 'after-pg')),
      headers: bearer(op),
    });
    expect(init.status, JSON.stringify(init.body)).toBe(202);
    const statusPath = '/api/v1/control-plane/companies/cell-after-pg/provisioning-status';
    await expect
      .poll(async () => (await api(0).call('GET', statusPath, { headers: bearer(op) })).body.data.status, {
        timeout: 30_000,
        interval: 200,
      })
      .toBe('completed');
    await expect.poll(() => executionsOf('company-init:cell-after-pg'), { timeout: 10_000, interval: 100 }).toEqual(['COMPLETED']);
    expect(await cluster.db.selectFrom('outbox').select('topic').execute()).toEqual([]);
  }, 120_000);
});

describe('the Temporal server stopped and started again on its state file', () => {
  it('API processes keep answering, workflow starts wait in the outbox, and a run that was going resumes', async () => {
    const appId = await releaseNotifier('resumer');
    // A run going when the server stops, held inside its notify step.
    const locks = await lockHolder();
    await locks.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`notify:${appId}`]);
    const executed = execute(api(0), 'resumer');
    await expect.poll(() => waitingForLocks(locks.pid), { timeout: 30_000, interval: 50 }).toBe(1);

    await cluster.temporalServer.stop();
    await locks.release();
    const during = await load(100, 8, createGroup('temporal-during'));
    expect(tally(during)).toEqual({ 201: 100 });
    // The api role does not use Temporal: it stays ready.
    expect(await Promise.all([readiness(api(0)), readiness(api(1))])).toEqual(['ready', 'ready']);
    const init = await api(1).call('POST', '/api/v1/control-plane/companies/initialize', {
      body: initializeBody('cell-after-temporal', path.join(cluster.companyRoot, 'after-temporal')),
      headers: bearer(op),
    });
    expect(init.status, JSON.stringify(init.body)).toBe(202);
    expect((await executed).status).toBe(202);
    // The start waits in the outbox until the server is back.
    const queued = await cluster.db.selectFrom('outbox').select('payload').where('topic', '=', 'company-init.requested').execute();
    expect(queued.map((q) => (q.payload as { cellId: string }).cellId)).toEqual(['cell-after-temporal']);
    await cluster.temporalServer.start();

    const statusPath = '/api/v1/control-plane/companies/cell-after-temporal/provisioning-status';
    await expect
      .poll(async () => (await api(0).call('GET', statusPath, { headers: bearer(op) })).body.data.status, {
        timeout: 40_000,
        interval: 200,
      })
      .toBe('completed');
    await expect.poll(() => runStatuses('resumer'), { timeout: 40_000, interval: 200 }).toEqual(['succeeded']);
    await expect.poll(() => executionsOf('company-init:cell-after-temporal'), { timeout: 10_000, interval: 100 }).toEqual(['COMPLETED']);
    await expectRunOnce(appId, 'resumer');
    await expectAllPresent(during);
  }, 120_000);
});

describe('an API process stopped (SIGTERM) under load, as in a rolling restart', () => {
  it('fails no request: those in flight on it finish, new ones go to the other process', async () => {
    const [a] = cluster.api;
    const balancer = healthChecked(50);
    let stopped: Promise<void> | undefined;
    const answers = await load(200, 8, (svc, i) => {
      // A third of the way in, with requests in flight on both.
      if (i === 70) stopped = stop(a, 'SIGTERM');
      return createGroup('rolling')(balancer.route(svc), i);
    });
    await stopped;
    await balancer.stop();
    expect(await a.exited).toBe(0);
    // The balancer took it out on its readiness (SVC_SHUTDOWN_DELAY_MS before it stopped
    // listening), not on a refused connection: a connection the kernel accepted for it just as
    // it closed its listener would have been reset, a request sent on it failed (stop 38's CI).
    expect(balancer.removals.find((r) => r.startsWith(`${a.name}:`))).toBe(`${a.name}: shutdown`);
    expect(tally(answers)).toEqual({ 201: 200 });
    await expectAllPresent(answers);
    await cluster.restart(a.name);
    expect(await readiness(api(0))).toBe('ready');
  }, 60_000);
});

describe('S3 unreachable', () => {
  it('uploads answer 503 and leave no version behind; files read before are still served from the cache', async () => {
    const content = 'console.log("read before the outage");';
    const files = (script: string) => [
      { path: 'index.html', encoding: 'utf8' as const, content: '<!doctype html><title>cached</title>' },
      { path: 'app.js', encoding: 'utf8' as const, content: script },
    ];
    await release(api(0), dev, { namespace: 'cell-acme', slug: 'cached', version: '1.0.0', files: files(content) });
    // B serves the file once: its bytes are now in B's cache.
    const cookie = await signIn(api(1), 'dana');
    const page = await rawGet(`${api(1).addresses.productionBase}/cell-acme/apps/cached`, { cookie });
    const read = () => rawGet(`${injected(page.text).base}app.js`, { cookie: ticketCookie(page) });
    expect([(await read()).status, (await read()).text]).toEqual([200, content]);

    await cluster.s3Link.cut();
    const upload = () =>
      api(0).call('POST', '/api/v1/developer/apps/cell-acme/cached/versions', {
        body: bundle('cached', '1.1.0', { files: files('console.log("new");') }),
        headers: bearer(dev),
      });
    const refused = await upload();
    expect([refused.status, refused.body.error, refused.headers.get('retry-after')]).toEqual([
      503,
      { code: 'service_unavailable', message: 'The blob store is unavailable; retry shortly.' },
      '1',
    ]);
    const versions = async () =>
      (
        await cluster.db
          .selectFrom('app_versions')
          .innerJoin('apps', 'apps.id', 'app_versions.app_id')
          .select('app_versions.version')
          .where('apps.slug', '=', 'cached')
          .execute()
      ).map((v) => v.version);
    expect(await versions()).toEqual(['1.0.0']);
    const cached = await read();
    expect([cached.status, cached.text]).toEqual([200, content]);

    await cluster.s3Link.restore();
    expect((await upload()).status).toBe(201);
    expect((await versions()).sort()).toEqual(['1.0.0', '1.1.0']);
  }, 60_000);
});

describe('the outbox with two relays racing', () => {
  it('delivers each intent once: runs asked for through both API processes at once each start one workflow', async () => {
    const workflow = {
      description: 'Lists the developers.',
      steps: [{ id: 'people', kind: 'use', capability: 'platform.accounts', input: { role: 'developer' } }],
    };
    await release(api(0), dev, { namespace: 'cell-acme', slug: 'racer', version: '1.0.0', manifest: { sdk: ['semantic'], workflow } });
    // Committed together, the intents wake both workers' relays at once.
    const asked = await Promise.all(Array.from({ length: 12 }, (_, i) => execute(api((i % 2) as 0 | 1), 'racer')));
    expect(asked.map((res) => res.status).filter((s) => s !== 201 && s !== 202)).toEqual([]);
    await expect.poll(() => runStatuses('racer'), { timeout: 30_000, interval: 200 }).toEqual(Array(12).fill('succeeded'));
    const runs = await cluster.db
      .selectFrom('workflow_runs')
      .innerJoin('apps', 'apps.id', 'workflow_runs.app_id')
      .select('workflow_runs.workflow_id')
      .where('apps.slug', '=', 'racer')
      .execute();
    expect(new Set(runs.map((r) => r.workflow_id)).size).toBe(12);
    for (const run of runs) expect(await executionsOf(run.workflow_id)).toEqual(['COMPLETED']);
    expect(await cluster.db.selectFrom('outbox').select('topic').execute()).toEqual([]);
  }, 60_000);
});
