import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findOntology } from '../../../domain/ontology/repository.ts';
import { writeEdits } from '../../../domain/ontology/write-edits.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { PAY_ORDER } from '../../support/ontology-actions.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Action writeback webhooks against a real HTTP server on loopback (private networks allowed, as
// the connectivity tests do): an accepted call lets the action commit; a rejection, a throttle or
// a timeout leaves no trace of the action and answers webhook_failed; a dry run calls nothing;
// batch apply is refused.

let svc: TestService;
let dev: string;
let server: http.Server;
let mode: 'accept' | 'reject' | 'throttle' | 'timeout' = 'accept';
const calls: { authorization: string | undefined; idempotencyKey: string | undefined; body: Record<string, unknown> }[] = [];
const held: http.ServerResponse[] = [];
const O = '/api/v1/ontologies/cell-acme';
const TOKEN = 'Bearer erp-writeback-token-5d1e';
const ERP_PAY = { ...PAY_ORDER, apiName: 'sales.payOrderErp', writebackWebhook: { connection: 'erp', timeoutMs: 300 } };

beforeAll(async () => {
  svc = await startTestService({ env: { SVC_CONNECTIVITY_PRIVATE_NETWORKS: 'allow' } });
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls.push({
        authorization: req.headers.authorization,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      if (mode === 'timeout') return void held.push(res);
      res.statusCode = { accept: 200, reject: 422, throttle: 429 }[mode];
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/writeback`;
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) })).status).toBe(200);
  const conn = await svc.call('POST', '/api/v1/connectivity/cell-acme/connections', {
    body: { kind: 'https', name: 'erp', url, authorization: TOKEN },
    headers: bearer(dev),
  });
  expect(conn.status, JSON.stringify(conn.body)).toBe(201);
  const ontology = (await findOntology(svc.database.db, 'cell-acme'))!;
  await svc.database.db.transaction().execute((trx) =>
    writeEdits(trx, {
      companyId: ontology.companyId,
      accountId: null,
      operationId: 'seed-writeback',
      actionTypeRid: null,
      edits: [1, 2, 3, 4, 5].map((number) => ({ type: 'create' as const, objectType: 'sales.Order', properties: { number, paid: false } })),
    }),
  );
  const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', {
    body: { actionTypes: [ERP_PAY] },
    headers: bearer(dev),
  });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
}, 60_000);
afterAll(async () => {
  for (const res of held) res.destroy();
  server?.close();
  await svc?.close();
});
beforeEach(async () => {
  calls.length = 0;
  mode = 'accept';
  await resetRateLimits(svc);
});

const pay = (order: number, headers: Record<string, string> = {}) =>
  svc.call('POST', `${O}/actions/sales.payOrderErp/apply`, { body: { parameters: { order } }, headers: { ...bearer(dev), ...headers } });
const historyOf = async (n: number) =>
  (
    await svc.database.db
      .selectFrom('ontology_edits')
      .select('operation_id')
      .where('primary_key', '=', String(n))
      .where('action_type_rid', 'is not', null)
      .execute()
  ).length;

describe('action writeback webhooks', () => {
  it('refuses a webhook naming no https connection of the company, with its path (422)', async () => {
    const res = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', {
      body: { actionTypes: [{ ...ERP_PAY, writebackWebhook: { connection: 'nowhere' } }] },
      headers: bearer(dev),
    });
    expect([res.status, res.body.error.code]).toEqual([422, 'definition_invalid']);
    expect(res.body.error.details.problems[0]).toMatchObject({
      path: 'actionTypes[0].writebackWebhook.connection',
      code: 'ConnectionNotFound',
    });
    const shown = await svc.call('GET', `${O}/actionTypes/sales.payOrderErp`, { headers: bearer(dev) });
    expect(shown.body.data?.writebackWebhook ?? shown.body.writebackWebhook).toEqual({ connection: 'erp', timeoutMs: 300 });
  });

  it('calls the webhook before committing: accepted, the action commits; the call carries the action, its edits and the sealed Authorization', async () => {
    const res = await pay(1);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.authorization).toBe(TOKEN);
    expect(calls[0]!.idempotencyKey).toBe(res.body.data.operationId);
    expect(calls[0]!.body).toMatchObject({
      actionType: 'sales.payOrderErp',
      operationId: res.body.data.operationId,
      parameters: { order: 1 },
      edits: [{ type: 'modifyObject', objectType: 'sales.Order', primaryKey: 1 }],
      objects: [{ objectType: 'sales.Order', primaryKey: 1, before: { paid: false }, after: { paid: true } }],
    });
    expect(await historyOf(1)).toBe(1);
  });

  it.each([
    ['reject', 'rejected', 422],
    ['throttle', 'throttled', 429],
    ['timeout', 'timeout', undefined],
  ] as const)('%s: the whole action has no effect and answers 502 webhook_failed (%s)', async (m, reason, status) => {
    mode = m;
    const n = { reject: 2, throttle: 3, timeout: 4 }[m];
    const res = await pay(n);
    expect([res.status, res.body.error?.code, res.body.error?.details?.reason], JSON.stringify(res.body)).toEqual([
      502,
      'webhook_failed',
      reason,
    ]);
    expect(res.body.error.details.status).toBe(status);
    expect(calls).toHaveLength(1);
    const after = await svc.call('GET', `${O}/objects/sales.Order/${n}`, { headers: bearer(dev) });
    expect(JSON.stringify(after.body)).toContain('"paid":false');
    expect(await historyOf(n)).toBe(0);
    expect(JSON.stringify(res.body)).not.toContain(TOKEN);
  });

  it('a dry run calls no webhook and changes nothing', async () => {
    const res = await pay(5, { 'x-svc-dry-run': 'true' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(calls).toHaveLength(0);
    expect(await historyOf(5)).toBe(0);
  });

  it('refuses batch apply of an action with a writeback webhook (422 action_invalid), calling nothing', async () => {
    const res = await svc.call('POST', `${O}/actions/sales.payOrderErp/applyBatch`, {
      body: { requests: [{ parameters: { order: 5 } }] },
      headers: bearer(dev),
    });
    expect([res.status, res.body.error.code, res.body.error.details.errorName]).toEqual([
      422,
      'action_invalid',
      'WritebackWebhookBatchApply',
    ]);
    expect(calls).toHaveLength(0);
    expect(await historyOf(5)).toBe(0);
  });

  it('keeps the connection while an action type calls it (409 connection_in_use naming the action type)', async () => {
    const listed = await svc.call('GET', '/api/v1/connectivity/cell-acme/connections', { headers: bearer(dev) });
    const erp = listed.body.data.data.find((c: { name: string }) => c.name === 'erp');
    const res = await svc.call('DELETE', `/api/v1/connectivity/cell-acme/connections/${erp.id}`, { headers: bearer(dev) });
    expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
      409,
      'connection_in_use',
      { syncs: [], actionTypes: ['sales.payOrderErp'] },
    ]);
  });
});
