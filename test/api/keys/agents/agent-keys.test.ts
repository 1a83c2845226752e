import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findOntology } from '../../../../domain/ontology/repository.ts';
import { writeEdits } from '../../../../domain/ontology/write-edits.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../../support/identity.ts';
import { SALES } from '../../../support/ontology.ts';
import { ACTIONS } from '../../../support/ontology-actions.ts';
import { startTestService, type TestService } from '../../../support/service.ts';

// Restricted agent keys (spec Authentication 7) and agent authors (branch_required), over real HTTP.

let svc: TestService;
let devKey: string;
let memberKey: string;
let devCookie: string;
const KEYS = '/api/v1/developer/agent-keys/cell-acme';
const O = '/api/v1/ontologies/cell-acme';
const RESTRICTIONS = {
  operations: ['api:use-ontologies-read', 'api:use-ontologies-write'],
  objectTypes: ['sales.Order'],
  actionTypes: ['sales.payOrder'],
};

async function issue(body: object, headers: Record<string, string> = bearer(devKey)) {
  const res = await svc.call('POST', KEYS, { body, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { key: string; keyId: string; prefix: string };
}

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  devKey = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  devCookie = await signIn(svc, 'dana');
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(devKey) })).status).toBe(200);
  expect(
    (await svc.call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', { body: ACTIONS, headers: bearer(devKey) })).status,
  ).toBe(200);
  const ontology = (await findOntology(svc.database.db, 'cell-acme'))!;
  await svc.database.db.transaction().execute((trx) =>
    writeEdits(trx, {
      companyId: ontology.companyId,
      accountId: null,
      operationId: 'seed',
      actionTypeRid: null,
      edits: [
        { type: 'create', objectType: 'sales.Order', properties: { number: 1, paid: false } },
        { type: 'create', objectType: 'sales.Customer', properties: { id: 'c1', name: 'Ada' } },
      ],
    }),
  );
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

describe('issuing, listing and revoking agent keys', () => {
  it('developers issue a key shown once and stored as a hash; the company’s developers list them by prefix', async () => {
    const issued = await issue({ agentId: 'ceo-bot', restrictions: RESTRICTIONS }, browser(devCookie, svc));
    expect(issued.key).toMatch(/^svc-dk-/);
    expect(issued.key.startsWith(issued.prefix)).toBe(true);
    const row = await svc.database.db.selectFrom('developer_keys').selectAll().where('id', '=', issued.keyId).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(issued.key);
    expect(row).toMatchObject({ agent_id: 'ceo-bot', role: 'member', issued_by: 'agent' });
    const listed = await svc.call('GET', KEYS, { headers: bearer(devKey) });
    expect(listed.body.data.keys).toEqual([
      expect.objectContaining({ keyId: issued.keyId, prefix: issued.prefix, agentId: 'ceo-bot', restrictions: RESTRICTIONS }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(issued.key);
    // Not among the developer's own login keys.
    const own = await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(devKey) });
    expect(own.body.data.keys.map((k: { keyId: string }) => k.keyId)).not.toContain(issued.keyId);
  });

  it('refuses members and other companies’ developers; a dry run issues nothing', async () => {
    const member = await svc.call('POST', KEYS, { body: { agentId: 'x' }, headers: bearer(memberKey) });
    expect([member.status, member.body.error.code]).toEqual([403, 'forbidden']);
    const other = await svc.call('GET', KEYS, { headers: bearer(await passwordKey(svc, 'gus')) });
    expect([other.status, other.body.error.code]).toEqual([403, 'forbidden']);
    const before = (await svc.call('GET', KEYS, { headers: bearer(devKey) })).body.data.keys.length;
    const dry = await svc.call('POST', KEYS, { body: { agentId: 'dry' }, headers: { ...bearer(devKey), 'x-svc-dry-run': 'true' } });
    expect(dry.status).toBe(202);
    expect(JSON.stringify(dry.body)).not.toMatch(/svc-dk-/);
    expect((await svc.call('GET', KEYS, { headers: bearer(devKey) })).body.data.keys).toHaveLength(before);
  });

  it('revokes: the key stops working; an unknown key is agent_key_not_found', async () => {
    const issued = await issue({ agentId: 'temp' });
    expect((await svc.call('GET', `${O}/objectTypes`, { headers: bearer(issued.key) })).status).toBe(404);
    const res = await svc.call('DELETE', `${KEYS}/${issued.keyId}`, { headers: browser(devCookie, svc) });
    expect(res.body.data).toEqual({ keyId: issued.keyId, revoked: true, alreadyRevoked: false });
    expect((await svc.call('GET', `${O}/objectTypes`, { headers: bearer(issued.key) })).status).toBe(401);
    const again = await svc.call('DELETE', `${KEYS}/${issued.keyId}`, { headers: bearer(devKey) });
    expect(again.body.data.alreadyRevoked).toBe(true);
    const unknown = await svc.call('DELETE', `${KEYS}/key_0000000000000000`, { headers: bearer(devKey) });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'agent_key_not_found']);
    // A login key of the company is no agent key.
    const login = await svc.database.db.selectFrom('developer_keys').select('id').where('agent_id', 'is', null).executeTakeFirstOrThrow();
    expect((await svc.call('DELETE', `${KEYS}/${login.id}`, { headers: bearer(devKey) })).body.error.code).toBe('agent_key_not_found');
  });
});

describe('what a restricted agent key may do', () => {
  it('reads only its listed types and runs only its listed actions', async () => {
    const { key } = await issue({ agentId: 'sales-bot', restrictions: RESTRICTIONS });
    const types = await svc.call('GET', `${O}/objectTypes`, { headers: bearer(key) });
    expect(types.body.data.data.map((t: { apiName: string }) => t.apiName)).toEqual(['sales.Order']);
    expect((await svc.call('GET', `${O}/objects/sales.Order/1`, { headers: bearer(key) })).status).toBe(200);
    expect((await svc.call('GET', `${O}/objects/sales.Customer/c1`, { headers: bearer(key) })).body.error.code).toBe(
      'object_type_not_found',
    );
    const actions = await svc.call('GET', `${O}/actionTypes`, { headers: bearer(key) });
    expect(actions.body.data.data.map((a: { apiName: string }) => a.apiName)).toEqual(['sales.payOrder']);
    const run = await svc.call('POST', `${O}/actions/sales.payOrder/apply`, { body: { parameters: { order: 1 } }, headers: bearer(key) });
    expect(run.body.data.validation.result).toBe('VALID');
    const unlisted = await svc.call('POST', `${O}/actions/sales.addCustomer/apply`, {
      body: { parameters: { id: 'c2', name: 'B' } },
      headers: bearer(key),
    });
    expect([unlisted.status, unlisted.body.error.code]).toEqual([404, 'action_type_not_found']);
    // Other semantic interfaces: 403 (definitions, branches, direct edits and imports, security policies).
    const others: [string, string, unknown?][] = [
      ['GET', '/api/v1/developer/semantic/cell-acme/types'],
      ['GET', '/api/v1/developer/semantic/cell-acme/branches'],
      ['POST', `${O}/edits`, { edits: [{ type: 'delete', objectType: 'sales.Order', primaryKey: 1 }] }],
      ['POST', `${O}/objects/sales.Order/import`, [{ number: 9 }]],
      ['GET', `${O}/objectTypes/sales.Order/security`],
    ];
    for (const [method, path, body] of others) {
      const res = await svc.call(method, path, { body, headers: bearer(key) });
      expect([res.status, res.body.error?.code], `${method} ${path}`).toEqual([403, 'forbidden']);
    }
  });

  it('is never issued without the read operation; a stored key without it reads nothing', async () => {
    for (const operations of [['api:use-ontologies-write'], []]) {
      const res = await svc.call('POST', KEYS, {
        body: { agentId: 'blind', restrictions: { operations, objectTypes: ['sales.Order'] } },
        headers: bearer(devKey),
      });
      expect([res.status, res.body.error.code], JSON.stringify(operations)).toEqual([400, 'invalid_payload']);
      expect(
        res.body.error.details.problems.map((p: { path: string }) => p.path),
        JSON.stringify(res.body.error.details),
      ).toEqual(['restrictions.operations']);
    }
    // A key stored so (before this rule): its listed types are not readable, its listed actions still run.
    const { key, keyId } = await issue({ agentId: 'writer-only', restrictions: RESTRICTIONS });
    const stored = JSON.stringify({ ...RESTRICTIONS, operations: ['api:use-ontologies-write'] });
    await sql`UPDATE developer_keys SET restrictions = ${stored}::jsonb WHERE id = ${keyId}`.execute(svc.database.db);
    const read = await svc.call('GET', `${O}/objects/sales.Order/1`, { headers: bearer(key) });
    expect([read.status, read.body.error.code]).toEqual([404, 'object_type_not_found']);
    const run = await svc.call('POST', `${O}/actions/sales.payOrder/apply`, {
      body: { parameters: { order: 1 }, options: { mode: 'VALIDATE_ONLY' } },
      headers: bearer(key),
    });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
  });

  it('is read-only without the write operation', async () => {
    const { key } = await issue({ agentId: 'reader', restrictions: { objectTypes: ['sales.Order'], actionTypes: ['sales.payOrder'] } });
    expect((await svc.call('GET', `${O}/objects/sales.Order/1`, { headers: bearer(key) })).status).toBe(200);
    const run = await svc.call('POST', `${O}/actions/sales.payOrder/apply`, {
      body: { parameters: { order: 1 }, options: { mode: 'VALIDATE_ONLY' } },
      headers: bearer(key),
    });
    expect([run.status, run.body.error.code]).toEqual([403, 'forbidden']);
    expect(run.body.error.message).toMatch(/read-only/);
  });
});

describe('agent authors', () => {
  it('cannot write the main definition: 409 branch_required (x-author on a developer key)', async () => {
    const headers = { ...bearer(devKey), 'x-author': 'agent:ceo-bot' };
    const types = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers });
    expect([types.status, types.body.error.code]).toEqual([409, 'branch_required']);
    const actions = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', { body: ACTIONS, headers });
    expect([actions.status, actions.body.error.code]).toEqual([409, 'branch_required']);
    // Reading and running actions stay open to them.
    expect((await svc.call('GET', `${O}/objectTypes/sales.Customer`, { headers })).status).toBe(200);
    const bad = await svc.call('GET', `${O}/objectTypes`, { headers: { ...bearer(devKey), 'x-author': 'robot' } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_payload']);
  });
});
