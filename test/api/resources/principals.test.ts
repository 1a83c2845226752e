import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { release } from '../../support/hosting.ts';
import { bearer, browser, createUser, operatorKey, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Issue 27, leftover 2: GET /api/v1/filesystem/principals?q= finds accounts by exact username or
// email (spec D). Which accounts a caller may find is the policy's decision (`account.find`):
// people of the caller's companies and accounts the caller's companies already share with; any
// account only for those who share with named people of any company (developers).

let svc: TestService;
let accounts: Record<'dana' | 'mo' | 'multi' | 'gus', string>;
let dev: string;
let mo: string;
let gil: { id: string };

const search = async (q: string, headers: Record<string, string>) => {
  const res = await svc.call('GET', `/api/v1/filesystem/principals?q=${encodeURIComponent(q)}`, { headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.principals.map((p: { principal: string }) => p.principal);
};

beforeAll(async () => {
  svc = await startTestService();
  ({ accounts } = await seedCompanies(svc));
  dev = await passwordKey(svc, 'dana');
  mo = await passwordKey(svc, 'mo');
  gil = await createUser(svc, await operatorKey(svc), 'gil', [{ cellId: 'cell-globex', role: 'member' }]);
  await release(svc, dev, { namespace: 'cell-acme', slug: 'crm', version: '1.0.0' });
}, 120_000);
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

describe('a company member finds only accounts related to their company', () => {
  it('a member key → q=<username or email of another company’s person with no relation to Acme> → no account (was the account id and name)', async () => {
    expect(await search('gus', bearer(mo))).toEqual([]);
    expect(await search('gus@example.com', bearer(mo))).toEqual([]);
    expect(await search('GIL@example.com', bearer(mo))).toEqual([]);
    // Signed in on the web, the same.
    expect(await search('gil', browser(await signIn(svc, 'mo'), svc))).toEqual([]);
    // The other way round: a Globex member does not find Acme's people either.
    expect(await search('dana', bearer(await passwordKey(svc, 'gil')))).toEqual([]);
  });

  it('a member key → q=<a person of the same company> → found, by exact username or email only', async () => {
    expect(await search('dana', bearer(mo))).toEqual([accounts.dana]);
    expect(await search('MULTI@example.com', bearer(mo))).toEqual([accounts.multi]);
    expect(await search('dan', bearer(mo))).toEqual([]);
  });

  it('a member key → q=<another company’s person Acme already shares with> → found (a named app share, a resource grant)', async () => {
    const share = await svc.call('POST', '/api/v1/developer/shares', {
      body: { namespace: 'cell-acme', slug: 'crm', audience: 'users', account: 'gus' },
      headers: bearer(dev),
    });
    expect(share.status, JSON.stringify(share.body)).toBe(201);
    expect(await search('gus', bearer(mo))).toEqual([accounts.gus]);
    const granted = await svc.call('POST', '/api/v1/filesystem/resources/ri.workshop.svc.app.cell-acme.crm/roles/add', {
      body: { principal: gil.id, role: 'viewer' },
      headers: bearer(dev),
    });
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    expect(await search('gil', bearer(mo))).toEqual([gil.id]);
    // A revoked share relates no more.
    const revoked = await svc.call('DELETE', `/api/v1/developer/shares/${share.body.data.share.id}?namespace=cell-acme&slug=crm`, {
      headers: bearer(dev),
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBeLessThan(300);
    expect(await search('gus', bearer(mo))).toEqual([]);
  });

  it('a developer key → q=<any account by exact username or email> → found: developers share with named people of any company', async () => {
    expect(await search('gil', bearer(dev))).toEqual([gil.id]);
    expect(await search('gus@example.com', browser(await signIn(svc, 'dana'), svc))).toEqual([accounts.gus]);
  });
});
