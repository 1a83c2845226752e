import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { ADD_CUSTOMER } from '../../support/ontology-actions.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Branches and proposals of definitions over real HTTP: agent authors write to branches; only a
// human web login approves, rejects and merges.

let svc: TestService;
let devKey: string;
let agent: Record<string, string>;
let web: Record<string, string>;
const S = '/api/v1/developer/semantic/cell-acme';
const INVOICE = {
  types: [
    {
      apiName: 'sales.Invoice',
      primaryKey: 'id',
      properties: { id: { dataType: { type: 'string' } }, total: { dataType: { type: 'double' } } },
    },
  ],
};
const ADD_INVOICE = {
  actionTypes: [
    {
      apiName: 'sales.addInvoice',
      parameters: { id: { dataType: { type: 'string' } } },
      edits: [{ type: 'createObject', objectType: 'sales.Invoice', properties: { id: { parameter: 'id' } } }],
    },
  ],
};

async function branchWithProposal(name: string, writes: [string, object][]) {
  expect((await svc.call('POST', `${S}/branches`, { body: { name }, headers: agent })).status).toBe(201);
  for (const [path, body] of writes) {
    const res = await svc.call('POST', `${S}/${path}?branch=${name}`, { body, headers: agent });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const proposal = await svc.call('POST', `${S}/branches/${name}/proposals`, { body: { title: `Merge ${name}` }, headers: agent });
  expect(proposal.status).toBe(201);
  return proposal.body.data.id as string;
}
const typeNames = async () =>
  (await svc.call('GET', `${S}/types`, { headers: bearer(devKey) })).body.data.types.map((t: { apiName: string }) => t.apiName);

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  devKey = await passwordKey(svc, 'dana');
  agent = { ...bearer(devKey), 'x-author': 'agent:modeler' };
  web = browser(await signIn(svc, 'dana'), svc);
  expect((await svc.call('POST', `${S}/types`, { body: SALES, headers: bearer(devKey) })).status).toBe(200);
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

describe('branches and proposals', () => {
  it('an agent author writes to a branch; main changes only when a human web login merges the approved proposal', async () => {
    expect((await svc.call('POST', `${S}/types`, { body: INVOICE, headers: agent })).body.error.code).toBe('branch_required');
    const id = await branchWithProposal('invoices', [
      ['types', INVOICE],
      ['actionTypes', ADD_INVOICE],
    ]);
    const branch = await svc.call('GET', `${S}/branches/invoices`, { headers: bearer(devKey) });
    expect(branch.body.data).toMatchObject({ name: 'invoices', status: 'ACTIVE', author: 'agent:modeler' });
    expect(branch.body.data.writes.map((w: { kind: string }) => w.kind)).toEqual(['objectTypes', 'actionTypes']);
    expect(await typeNames()).not.toContain('sales.Invoice');

    for (const headers of [agent, bearer(devKey)]) {
      const refused = await svc.call('POST', `${S}/proposals/${id}/approve`, { headers });
      expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    }
    const early = await svc.call('POST', `${S}/proposals/${id}/merge`, { headers: web });
    expect([early.status, early.body.error.code]).toEqual([409, 'conflict']);
    expect((await svc.call('POST', `${S}/proposals/${id}/approve`, { headers: web })).body.data.status).toBe('APPROVED');
    const merged = await svc.call('POST', `${S}/proposals/${id}/merge`, { headers: web });
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(merged.body.data.status).toBe('MERGED');
    expect(await typeNames()).toContain('sales.Invoice');
    const actions = await svc.call('GET', '/api/v1/ontologies/cell-acme/actionTypes', { headers: bearer(devKey) });
    expect(actions.body.data.data.map((a: { apiName: string }) => a.apiName)).toEqual(['sales.addInvoice']);
    expect((await svc.call('GET', `${S}/branches/invoices`, { headers: bearer(devKey) })).body.data.status).toBe('MERGED');
    const late = await svc.call('POST', `${S}/types?branch=invoices`, { body: INVOICE, headers: agent });
    expect([late.status, late.body.error.code]).toEqual([409, 'conflict']);
  });

  it('a merge is all or none: a write refused on main leaves main as it was', async () => {
    const broken = { actionTypes: [{ ...ADD_CUSTOMER, apiName: 'sales.broken', edits: [{ type: 'deleteObject', object: 'nobody' }] }] };
    const id = await branchWithProposal('broken', [
      ['types', { types: [{ ...INVOICE.types[0], apiName: 'sales.Receipt' }] }],
      ['actionTypes', broken],
    ]);
    await svc.call('POST', `${S}/proposals/${id}/approve`, { headers: web });
    const merged = await svc.call('POST', `${S}/proposals/${id}/merge`, { headers: web });
    expect([merged.status, merged.body.error.code]).toEqual([422, 'definition_invalid']);
    expect(await typeNames()).not.toContain('sales.Receipt');
    const proposals = await svc.call('GET', `${S}/proposals`, { headers: bearer(devKey) });
    expect(proposals.body.data.data.find((p: { id: string }) => p.id === id).status).toBe('APPROVED');
  });

  it('rejects from a web login; refuses what does not exist', async () => {
    const id = await branchWithProposal('rejected', [['types', INVOICE]]);
    expect((await svc.call('POST', `${S}/proposals/${id}/reject`, { headers: web })).body.data.status).toBe('REJECTED');
    const merge = await svc.call('POST', `${S}/proposals/${id}/merge`, { headers: web });
    expect([merge.status, merge.body.error.code]).toEqual([409, 'conflict']);
    const missing = await svc.call('POST', `${S}/types?branch=nope`, { body: INVOICE, headers: agent });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'branch_not_found']);
    const unknown = await svc.call('POST', `${S}/proposals/prp_0000000000000000/approve`, { headers: web });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'proposal_not_found']);
    const twice = await svc.call('POST', `${S}/branches`, { body: { name: 'rejected' }, headers: agent });
    expect([twice.status, twice.body.error.code]).toEqual([409, 'conflict']);
    const badShape = await svc.call('POST', `${S}/types?branch=rejected`, { body: { types: [{ apiName: 'x' }] }, headers: agent });
    expect([badShape.status, badShape.body.error.code]).toEqual([422, 'definition_invalid']);
  });
});
