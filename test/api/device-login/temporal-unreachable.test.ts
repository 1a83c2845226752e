import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browser, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestResponse, type TestService } from '../../support/service.ts';

// docs/api/conventions.md: "A request never calls Temporal: workflow starts and signals are outbox rows
// delivered by the relay", and `npm run api` "needs no Temporal". The API role runs here with
// TEMPORAL_ADDRESS at a closed port; the device-login writes that start or signal a workflow must
// still answer at once, their intents waiting in the outbox for a worker.
//
// The only timed assertion of the suite: 2.5 s is generous on purpose (a loaded 2-core machine
// answers these in tens of milliseconds); a request that waited on Temporal would take at least
// the relay's 10-second delivery deadline or a connection timeout.
const BOUND_MS = 2500;
const UNREACHABLE = '127.0.0.1:1';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ role: 'api', env: { TEMPORAL_ADDRESS: UNREACHABLE } });
  await seedCompanies(svc);
});
afterAll(() => svc.close());

async function timed(request: () => Promise<TestResponse>) {
  const started = performance.now();
  const res = await request();
  return { res, ms: performance.now() - started };
}

const outbox = async () =>
  (
    await sql<{ topic: string; key: string; payload: Record<string, unknown> }>`
      SELECT topic, key, payload FROM outbox ORDER BY created_at`.execute(svc.database.db)
  ).rows;

const loginId = async (userCode: string) =>
  (
    await svc.database.db
      .selectFrom('device_logins')
      .select('id')
      .where('user_code', '=', userCode.replace('-', ''))
      .executeTakeFirstOrThrow()
  ).id;

describe('the API role with Temporal unreachable', () => {
  it('is configured with a Temporal address nothing listens on', async () => {
    const refused = await new Promise<string>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port: 1 });
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    expect(svc.role).toBe('api');
  });

  it('answers a device-code start with 201 within 2.5 s; the workflow start waits in the outbox', async () => {
    const { res, ms } = await timed(() => svc.call('POST', '/api/v1/developer/device-codes', { body: { clientName: 'offline' } }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(ms).toBeLessThan(BOUND_MS);
    const id = await loginId(res.body.data.userCode);
    expect(await outbox()).toContainEqual({ topic: 'device-login.started', key: id, payload: { expiresAt: expect.any(String) } });
  });

  it('answers a denial and a redeeming poll within 2.5 s too; their signals wait in the outbox', async () => {
    const cookie = await signIn(svc, 'dana');
    const denied = (await svc.call('POST', '/api/v1/developer/device-codes', { body: {} })).body.data;
    const decision = await timed(() =>
      svc.call('POST', '/api/v1/developer/device-codes/decision', {
        body: { userCode: denied.userCode, decision: 'deny' },
        headers: browser(cookie, svc),
      }),
    );
    expect(decision.res.status).toBe(200);
    expect(decision.ms).toBeLessThan(BOUND_MS);

    const approved = (await svc.call('POST', '/api/v1/developer/device-codes', { body: {} })).body.data;
    await svc.call('POST', '/api/v1/developer/device-codes/decision', {
      body: { userCode: approved.userCode, decision: 'approve' },
      headers: browser(cookie, svc),
    });
    const poll = await timed(() => svc.call('POST', '/api/v1/developer/device-tokens', { body: { deviceCode: approved.deviceCode } }));
    expect(poll.res.status).toBe(201);
    expect(poll.ms).toBeLessThan(BOUND_MS);

    const rows = await outbox();
    expect(rows).toContainEqual({ topic: 'device-login.closed', key: await loginId(denied.userCode), payload: { reason: 'denied' } });
    expect(rows).toContainEqual({ topic: 'device-login.closed', key: await loginId(approved.userCode), payload: { reason: 'redeemed' } });
  });
});
