import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { exitCode, type StartedProcess, startProcess } from './support/process.ts';

// Two service processes (`npm run api` twice) over one PostgreSQL metering the same app: the
// requestsPerMinute budget of its ticket is shared across both (exactly, when each has more
// requests than the budget: see consumeReserved for what a process's reserve costs), and compute metered from
// two other processes at once adds up to the last millisecond in the usage both report.

const OPERATOR = { login: 'meter-ops', password: 'meter-operator-password' };
const CAP = 30;
let database: TestDatabase;
const processes: StartedProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const env = { DATABASE_URL: database.url, SVC_OPERATOR_LOGIN: OPERATOR.login, SVC_OPERATOR_PASSWORD: OPERATOR.password };
  // One after the other: both would otherwise race to create the operator account.
  processes.push(await startProcess(['api'], env));
  processes.push(await startProcess(['api'], env));
}, 60_000);
afterAll(async () => {
  for (const p of processes) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
  await database?.drop();
});

async function call(base: string, method: string, path: string, body?: unknown, credential?: string) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
}

function meterFrom(appId: string, calls: number): Promise<void> {
  const child = spawn(process.execPath, [path.resolve('test/domain/usage/fixtures/meter-process.ts'), database.url, appId, String(calls)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  return exitCode(child).then((code) => {
    expect([code, out.trim()]).toEqual([0, `metered ${calls}`]);
  });
}

describe('two service processes metering one app', () => {
  it('share its per-IP request budget, refusing past it with rate_limited and Retry-After, and report the compute both metered', async () => {
    const [first, second] = processes.map((p) => p.ready) as [string, string];
    const token = await call(first, 'POST', '/api/v1/developer/password-tokens', OPERATOR);
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    const key: string = token.body.data.key;
    const manifest = { manifestVersion: 1, slug: 'shared', version: '1.0.0', title: 'Shared', limits: { requestsPerMinute: CAP } };
    const files = [{ path: 'index.html', encoding: 'utf8', content: '<!doctype html><title>shared</title>' }];
    expect((await call(first, 'POST', '/api/v1/developer/apps/public/shared/versions', { manifest, files }, key)).status).toBe(201);
    for (const channel of ['test', 'production']) {
      expect((await call(second, 'POST', `/api/v1/developer/apps/public/shared/channels/${channel}`, {}, key)).status).toBe(200);
    }
    const page = await fetch(`${first}/p/apps/shared`, { headers: { authorization: `Bearer ${key}` } });
    expect(page.status).toBe(200);
    const ticket = /<meta name="svc-app-ticket" content="([^"]+)">/.exec(await page.text())![1]!;

    const appId = (await database.db.selectFrom('apps').select('id').where('slug', '=', 'shared').executeTakeFirstOrThrow()).id;
    await Promise.all([meterFrom(appId, 400), meterFrom(appId, 250)]);

    // The two processes answer 2 × CAP ticket requests at once (same source IP), in one minute:
    // not started in a minute's last 10 s.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
    const answers = await Promise.all(
      Array.from({ length: 2 * CAP }, (_, i) =>
        call(i % 2 ? first : second, 'GET', '/api/v1/developer/apps/public/shared/usage', undefined, ticket),
      ),
    );
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(ok.length + limited.length).toBe(2 * CAP);
    const hits = await database.db
      .selectFrom('rate_limit_hits')
      .select(['hits'])
      .where('bucket', 'like', `app-requests:${appId}:%`)
      .execute();
    // Each process holds what it reserved of the count (domain/rate-limit consumeReserved); both
    // use up their share of the first CAP numbers, as each has CAP requests: exactly CAP let through.
    expect(hits).toHaveLength(1);
    expect(ok.length).toBe(CAP);
    expect(hits[0]!.hits).toBeGreaterThanOrEqual(CAP + 1);
    for (const a of limited) {
      expect(a.body.error.code).toBe('rate_limited');
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(a.retryAfter)).toBeLessThanOrEqual(60);
    }

    const compute = ok[0]!.body.data.computeMinutes;
    const modelMs = [400, 250].reduce((sum, n) => sum + Array.from({ length: n }, (_, i) => i % 7).reduce((a, b) => a + b, 0), 0);
    expect(compute.workflow).toBe(10.833); // 650,000 ms, in minutes to the millisecond
    expect(compute.model).toBe(Math.round(modelMs / 60) / 1000);
    const rows = await database.db
      .selectFrom('usage_counters')
      .select(['meter', 'amount'])
      .where('app_id', '=', appId)
      .orderBy('meter')
      .execute();
    expect(rows).toEqual([
      { meter: 'compute.model', amount: modelMs },
      { meter: 'compute.workflow', amount: 650_000 },
    ]);
  });
});
