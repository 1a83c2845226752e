import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceLoginWorkflowId } from '../../workflows/contract.ts';
import { browser, seedCompanies, signIn } from '../support/identity.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The whole path: the API writes the start into the outbox with its commit, the relay starts
// the expiry workflow, the worker in the service runs it on the in-memory Temporal server, and
// redeeming ends it.

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ role: 'all' });
  await seedCompanies(svc);
}, 120_000);
afterAll(() => svc.close());

/** The expiry workflow of a device login, once the relay has started it. */
async function startedWorkflow(userCode: string) {
  const handle = svc.temporal!.client.workflow.getHandle(deviceLoginWorkflowId(await deviceLoginId(userCode)));
  await expect
    .poll(() =>
      handle.describe().then(
        (d) => d.status.name,
        () => 'not started',
      ),
    )
    .toBe('RUNNING');
  return handle;
}

async function deviceLoginId(userCode: string): Promise<string> {
  const row = await svc.database.db
    .selectFrom('device_logins')
    .select('id')
    .where('user_code', '=', userCode.replace('-', ''))
    .executeTakeFirstOrThrow();
  return row.id;
}

describe('device login on Temporal', () => {
  it('runs one expiry workflow per device login, which ends when the key is redeemed', async () => {
    const d = (await svc.call('POST', '/api/v1/developer/device-codes', { body: {} })).body.data;
    const handle = await startedWorkflow(d.userCode);

    const cookie = await signIn(svc, 'dana');
    await svc.call('POST', '/api/v1/developer/device-codes/decision', {
      body: { userCode: d.userCode, decision: 'approve' },
      headers: browser(cookie, svc),
    });
    const key = await svc.call('POST', '/api/v1/developer/device-tokens', { body: { deviceCode: d.deviceCode } });
    expect(key.status).toBe(201);
    expect(await handle.result()).toBe('redeemed');
  });

  it('ends on denial, and a dry run starts no workflow', async () => {
    const d = (await svc.call('POST', '/api/v1/developer/device-codes', { body: {} })).body.data;
    const handle = await startedWorkflow(d.userCode);
    const cookie = await signIn(svc, 'dana');
    await svc.call('POST', '/api/v1/developer/device-codes/decision', {
      body: { userCode: d.userCode, decision: 'deny' },
      headers: browser(cookie, svc),
    });
    expect(await handle.result()).toBe('denied');

    const before = await svc.temporal!.client.workflow.count('WorkflowType = "deviceLoginExpiry"');
    const dry = await svc.call('POST', '/api/v1/developer/device-codes', { body: {}, headers: { 'x-svc-dry-run': 'true' } });
    expect(dry.status).toBe(202);
    // A dry run is rolled back, its outbox intent with it: nothing waits to be delivered.
    expect(await svc.database.db.selectFrom('outbox').selectAll().execute()).toEqual([]);
    expect((await svc.temporal!.client.workflow.count('WorkflowType = "deviceLoginExpiry"')).count).toBe(before.count);
  });
});
