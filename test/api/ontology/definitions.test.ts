import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findOntology } from '../../../domain/ontology/repository.ts';
import { writeEdits } from '../../../domain/ontology/write-edits.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Semantic definitions and the ontology read routes over real HTTP and PostgreSQL.

let svc: TestService;
let devKey: string;
let memberKey: string;
let otherKey: string;
let devCookie: string;
let memberCookie: string;
const TYPES = '/api/v1/developer/semantic/cell-acme/types';
const O = '/api/v1/ontologies/cell-acme';

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  devKey = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  otherKey = await passwordKey(svc, 'gus');
  devCookie = await signIn(svc, 'dana');
  memberCookie = await signIn(svc, 'mo');
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

describe('semantic definitions', () => {
  it('a dry run answers the plan and defines nothing', async () => {
    const dry = await svc.call('POST', TYPES, { body: SALES, headers: { ...bearer(devKey), 'x-svc-dry-run': 'true' } });
    expect(dry.status).toBe(202);
    expect(dry.body.data.plan.types.map((t: { change: string }) => t.change)).toEqual(['created', 'created']);
    expect(await findOntology(svc.database.db, 'cell-acme')).toBeUndefined();
    expect((await svc.call('GET', TYPES, { headers: bearer(devKey) })).body.data).toEqual({ types: [], linkTypes: [] });
  });

  it('defines types and link types for developers; they read them back, versioned', async () => {
    const res = await svc.call('POST', TYPES, { body: SALES, headers: bearer(devKey) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.types.map((t: { apiName: string; rid: string; version: number }) => [t.apiName, t.version])).toEqual([
      ['sales.Customer', 1],
      ['sales.Order', 1],
    ]);
    const listed = await svc.call('GET', TYPES, { headers: browser(devCookie, svc) });
    expect(listed.body.data.types.map((t: { apiName: string }) => t.apiName)).toEqual(['sales.Customer', 'sales.Order']);
    expect(listed.body.data.linkTypes).toEqual([
      {
        rid: expect.stringMatching(/^ri\.ontology\.svc\.link-type\./),
        apiName: 'order-customer',
        source: { objectType: 'sales.Order', linkApiName: 'customer', cardinality: 'ONE' },
        target: { objectType: 'sales.Customer', linkApiName: 'orders', cardinality: 'MANY' },
      },
    ]);
  });

  it('refuses members (403 with an explanation) and other companies’ developers', async () => {
    const member = await svc.call('POST', TYPES, { body: SALES, headers: bearer(memberKey) });
    expect([member.status, member.body.error.code]).toEqual([403, 'forbidden']);
    expect(member.body.error.message).toMatch(/developer-only interface/);
    const session = await svc.call('GET', TYPES, { headers: browser(memberCookie, svc) });
    expect([session.status, session.body.error.code]).toEqual([403, 'forbidden']);
    expect(session.body.error.message).toMatch(/Only developers of cell-acme may use this developer-only interface/);
    const other = await svc.call('GET', TYPES, { headers: bearer(otherKey) });
    expect([other.status, other.body.error.code]).toEqual([403, 'forbidden']);
  });

  it('answers an invalid definition with 422 and the path, and unknown fields with their path', async () => {
    const bad = await svc.call('POST', TYPES, {
      body: { types: [{ apiName: 'sales.Bad', primaryKey: 'id', properties: { id: { dataType: { type: 'uuid' } } } }] },
      headers: bearer(devKey),
    });
    expect([bad.status, bad.body.error.code, bad.body.error.details.errorName]).toEqual([422, 'definition_invalid', 'InvalidDefinition']);
    expect(bad.body.error.details.problems[0].path).toMatch(/^types\[0\]\.properties\.id\.dataType/);
    const unknown = await svc.call('POST', TYPES, { body: { types: [], extra: 1 }, headers: bearer(devKey) });
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'invalid_payload']);
  });

  it('refuses a breaking change with 409 and the properties that block it', async () => {
    const ontology = (await findOntology(svc.database.db, 'cell-acme'))!;
    await svc.database.db.transaction().execute((trx) =>
      writeEdits(trx, {
        companyId: ontology.companyId,
        accountId: null,
        operationId: 'op-api-breaking',
        actionTypeRid: null,
        edits: [{ type: 'create', objectType: 'sales.Customer', properties: { id: 'c1', name: 'Ada', tier: 2 } }],
      }),
    );
    const customer = SALES.types![0]!;
    const { tier: _tier, ...properties } = customer.properties as Record<string, unknown>;
    const res = await svc.call('POST', TYPES, { body: { types: [{ ...customer, properties }] }, headers: bearer(devKey) });
    expect([res.status, res.body.error.code]).toEqual([409, 'definition_breaking_change']);
    expect(res.body.error.details.properties).toEqual([{ property: 'tier', change: 'removed', objectsWithValues: 1 }]);
  });
});

describe('ontology reads', () => {
  it('developers read the ontology, its types, links and objects', async () => {
    const list = await svc.call('GET', '/api/v1/ontologies', { headers: bearer(devKey) });
    expect(list.body.data.data).toEqual([
      { rid: 'ri.ontology.svc.ontology.cell-acme', apiName: 'cell-acme', displayName: 'Acme', description: expect.any(String) },
    ]);
    const byRid = await svc.call('GET', '/api/v1/ontologies/ri.ontology.svc.ontology.cell-acme/objectTypes/sales.Order', {
      headers: bearer(devKey),
    });
    expect(byRid.body.data).toMatchObject({
      apiName: 'sales.Order',
      primaryKey: 'number',
      titleProperty: 'number',
      status: 'ACTIVE',
      version: 1,
    });
    const links = await svc.call('GET', `${O}/objectTypes/sales.Customer/outgoingLinkTypes`, { headers: bearer(devKey) });
    expect(links.body.data.data).toEqual([
      {
        apiName: 'orders',
        displayName: 'orders',
        status: 'ACTIVE',
        objectTypeApiName: 'sales.Order',
        cardinality: 'MANY',
        linkTypeRid: expect.any(String),
      },
    ]);
    const one = await svc.call('GET', `${O}/objectTypes/sales.Order/outgoingLinkTypes/customer`, { headers: bearer(devKey) });
    expect(one.body.data).toMatchObject({ objectTypeApiName: 'sales.Customer', cardinality: 'ONE' });
    const object = await svc.call('GET', `${O}/objects/sales.Customer/c1?select=name`, { headers: bearer(devKey) });
    expect(object.body.data).toEqual({
      __apiName: 'sales.Customer',
      __primaryKey: 'c1',
      __rid: expect.any(String),
      __rev: 1,
      id: 'c1',
      name: 'Ada',
    });
    const missing = await svc.call('GET', `${O}/objects/sales.Customer/nobody`, { headers: bearer(devKey) });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'object_not_found']);
    const badSelect = await svc.call('GET', `${O}/objects/sales.Customer/c1?select=color`, { headers: bearer(devKey) });
    expect([badSelect.status, badSelect.body.error.code, badSelect.body.error.details.errorName]).toEqual([
      400,
      'query_invalid',
      'PropertiesNotFound',
    ]);
  });

  it('members see only the types a production manifest of their company lists; others see no ontology', async () => {
    const none = await svc.call('GET', `${O}/objectTypes`, { headers: bearer(memberKey) });
    expect([none.status, none.body.error.code]).toEqual([404, 'ontology_not_found']);
    await release(svc, devKey, {
      namespace: 'cell-acme',
      slug: 'crm',
      version: '1.0.0',
      manifest: { semantic: { types: ['sales.Customer'] } },
    });
    const listed = await svc.call('GET', `${O}/objectTypes`, { headers: bearer(memberKey) });
    expect(listed.body.data.data.map((t: { apiName: string }) => t.apiName)).toEqual(['sales.Customer']);
    const hidden = await svc.call('GET', `${O}/objectTypes/sales.Order`, { headers: browser(memberCookie, svc) });
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'object_type_not_found']);
    // The link's other end is not readable: the link is not shown.
    const links = await svc.call('GET', `${O}/objectTypes/sales.Customer/outgoingLinkTypes`, { headers: bearer(memberKey) });
    expect(links.body.data.data).toEqual([]);
    const other = await svc.call('GET', `${O}/objectTypes`, { headers: bearer(otherKey) });
    expect([other.status, other.body.error.code]).toEqual([404, 'ontology_not_found']);
    expect((await svc.call('GET', '/api/v1/ontologies', { headers: bearer(otherKey) })).body.data.data).toEqual([]);
  });

  it('an app ticket reads only its app’s company, even for an account that develops elsewhere', async () => {
    // multi: a member of Acme and a developer of Globex.
    const gus = await passwordKey(svc, 'gus');
    expect((await svc.call('POST', '/api/v1/developer/semantic/cell-globex/types', { body: SALES, headers: bearer(gus) })).status).toBe(
      200,
    );
    const cookie = await signIn(svc, 'multi');
    const ticket = injected((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/crm`, { cookie })).text).ticket;
    const own = await svc.call('GET', `${O}/objectTypes`, { headers: bearer(ticket) });
    expect(own.body.data.data.map((t: { apiName: string }) => t.apiName)).toEqual(['sales.Customer']);
    const elsewhere = await svc.call('GET', '/api/v1/ontologies/cell-globex/objectTypes', { headers: bearer(ticket) });
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([404, 'ontology_not_found']);
    // The same account's session is a Globex developer there.
    const session = await svc.call('GET', '/api/v1/ontologies/cell-globex/objectTypes', { headers: { cookie } });
    expect(session.body.data.data).toHaveLength(2);
  });
});
