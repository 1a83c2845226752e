import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceLoginWorkflowId } from '../../worker/shared.ts';
import { browser, seedCompanies, signIn } from '../support/identity.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The whole path: the API starts the expiry workflow after commit, the worker in
// the service runs it on the in-memory Temporal server, and redeeming ends it.

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ worker: true });
  await seedCompanies(svc);
}, 120_000);
afterAll(() => svc.close());

async function deviceLoginId(userCode: string): Promise<string> {
  const row = await svc.database.db.selectFrom('device_logins').select('id').where('user_code', '=', userCode.replace('-', '')).executeTakeFirstOrThrow();
  return row.id;
}

describe('device login on Temporal', () => {
  it('runs one expiry workflow per device login, which ends when the key is redeemed', async () => {
    const d = (await svc.call('POST', '/api/v1/developer/device-codes', { body: {} })).body.data;
    const id = await deviceLoginId(d.userCode);
    const handle = svc.temporal.client.workflow.getHandle(deviceLoginWorkflowId(id));
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const cookie = await signIn(svc, 'dana');
    await svc.call('POST', '/api/v1/developer/device-codes/decision', { body: { userCode: d.userCode, decision: 'approve' }, headers: browser(cookie, svc) });
    const key = await svc.call('POST', '/api/v1/developer/device-tokens', { body: { deviceCode: d.deviceCode } });
    expect(key.status).toBe(201);
    expect(await handle.result()).toBe('redeemed');
  });

  it('ends on denial, and a dry run starts no workflow', async () => {
    const d = (await svc.call('POST', '/api/v1/developer/device-codes', { body: {} })).body.data;
    const cookie = await signIn(svc, 'dana');
    await svc.call('POST', '/api/v1/developer/device-codes/decision', { body: { userCode: d.userCode, decision: 'deny' }, headers: browser(cookie, svc) });
    expect(await svc.temporal.client.workflow.getHandle(deviceLoginWorkflowId(await deviceLoginId(d.userCode))).result()).toBe('denied');

    const before = await svc.temporal.client.workflow.count('WorkflowType = "deviceLoginExpiry"');
    const dry = await svc.call('POST', '/api/v1/developer/device-codes', { body: {}, headers: { 'x-svc-dry-run': 'true' } });
    expect(dry.status).toBe(202);
    expect((await svc.temporal.client.workflow.count('WorkflowType = "deviceLoginExpiry"')).count).toBe(before.count);
  });
});
