import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../support/clock.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Groups as principals (spec G, C, D): a users share naming a group opens the app to its live
// members, and stops for one at once when the membership is removed or expires (tickets too); a
// group's grant on a resource gives its members the role; groups of another company are never
// accepted; departments are refused; the principals search finds a company's groups.

const clock = new TestClock('2026-11-27T10:00:00Z');
let svc: TestService;
let dana: string;
let gusKey: string;
let accounts: Record<'dana' | 'mo' | 'multi' | 'gus', string>;
const appRid = (slug: string) => `ri.workshop.svc.app.cell-acme.${slug}`;

beforeAll(async () => {
  svc = await startTestService({ clock });
  ({ accounts } = await seedCompanies(svc));
  dana = await passwordKey(svc, 'dana');
  gusKey = await passwordKey(svc, 'gus');
  for (const slug of ['vault', 'granted', 'ledger']) {
    await release(svc, dana, { namespace: 'cell-acme', slug, version: '1.0.0', manifest: { auth: { access: 'restricted' } } });
  }
}, 60_000);
afterAll(() => svc.close());
beforeEach(async () => {
  clock.set('2026-11-27T10:00:00Z');
  await resetRateLimits(svc);
});

const call = (method: string, path: string, key: string, body?: unknown) =>
  svc.call(method, path, { ...(body === undefined ? {} : { body }), headers: bearer(key) });
async function group(name: string, key = dana): Promise<string> {
  const res = await call('POST', '/api/v1/admin/groups', key, { name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}
const add = async (id: string, principalIds: string[], expiration?: string) => {
  const res = await call('POST', `/api/v1/admin/groups/${id}/groupMembers/add`, dana, {
    principalIds,
    ...(expiration ? { expiration } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const remove = async (id: string, principalIds: string[]) =>
  expect((await call('POST', `/api/v1/admin/groups/${id}/groupMembers/remove`, dana, { principalIds })).status).toBe(200);
const open = async (slug: string, login: string) =>
  rawGet(`${svc.addresses.productionBase}/cell-acme/apps/${slug}`, { cookie: await signIn(svc, login) });
const me = (ticket: string) => svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(ticket) });

describe('a users share naming a group', () => {
  it('opens the app to the group’s members, and stops for each at once when removed or when the membership expires', async () => {
    const id = await group('Vault readers');
    await add(id, [accounts.mo]);
    await add(id, [accounts.gus], '2026-11-28T10:00:00Z');
    expect((await open('vault', 'mo')).status).toBe(403);

    const shared = await call('POST', '/api/v1/developer/shares', dana, {
      namespace: 'cell-acme',
      slug: 'vault',
      audience: 'users',
      account: id,
    });
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    expect(shared.body.data.share).toMatchObject({
      audience: 'users',
      role: 'editor',
      account: null,
      group: { id, name: 'Vault readers' },
    });
    const listed = await call('GET', '/api/v1/developer/shares?namespace=cell-acme&slug=vault', dana);
    expect(listed.body.data.shares).toEqual([expect.objectContaining({ group: { id, name: 'Vault readers' } })]);

    // A member of the company keeps the member role; an outsider opens as a named share's editor.
    const moPage = await open('vault', 'mo');
    expect(moPage.status).toBe(200);
    const moTicket = injected(moPage.text).ticket;
    expect((await me(moTicket)).body.data).toMatchObject({ role: 'member', viaShare: true });
    // One sign-in opening twice: the second open hands out the same ticket (kept until the membership's expiry).
    const gusCookie = await signIn(svc, 'gus');
    const openAsGus = () => rawGet(`${svc.addresses.productionBase}/cell-acme/apps/vault`, { cookie: gusCookie });
    const gusPage = await openAsGus();
    expect(gusPage.status).toBe(200);
    const gusTicket = injected(gusPage.text).ticket;
    expect(injected((await openAsGus()).text).ticket).toBe(gusTicket);
    expect((await me(gusTicket)).body.data).toMatchObject({ role: 'editor', member: false, viaShare: true });
    // Not a member: still refused.
    expect((await open('vault', 'multi')).status).toBe(403);
    // The outsider finds it under "Shared with you" in their own company's catalog.
    const catalog = async () =>
      (await rawGet(`${svc.addresses.productionBase}/cell-globex/apps`, { cookie: await signIn(svc, 'gus') })).text;
    expect(await catalog()).toContain(`${svc.addresses.productionBase}/cell-acme/apps/vault`);

    await remove(id, [accounts.mo]);
    expect((await open('vault', 'mo')).status).toBe(403);
    expect((await me(moTicket)).status).toBe(401);
    expect((await me(gusTicket)).status).toBe(200);

    clock.set('2026-11-28T10:00:00Z');
    expect((await openAsGus()).status).toBe(403);
    expect((await open('vault', 'gus')).status).toBe(403);
    expect((await me(gusTicket)).status).toBe(401);
    expect(await catalog()).not.toContain('/cell-acme/apps/vault');
  });

  it('hands a reopening member the same ticket only until the membership that admitted them expires', async () => {
    const id = await group('Late readers');
    await add(id, [accounts.gus], '2026-11-27T11:00:00Z');
    const shared = await call('POST', '/api/v1/developer/shares', dana, {
      namespace: 'cell-acme',
      slug: 'ledger',
      audience: 'users',
      account: id,
    });
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    const cookie = await signIn(svc, 'gus');
    const reopen = () => rawGet(`${svc.addresses.productionBase}/cell-acme/apps/ledger`, { cookie });
    const first = await reopen();
    expect(first.status).toBe(200);
    clock.set('2026-11-27T10:59:00Z');
    expect(injected((await reopen()).text).ticket).toBe(injected(first.text).ticket);
    // The ticket is well within half its life; the membership is over.
    clock.set('2026-11-27T11:00:00Z');
    expect((await reopen()).status).toBe(403);
  });

  it('refuses a group of another company, and an unknown group, as principal_not_found', async () => {
    const theirs = await group('Globex crew', gusKey);
    for (const account of [theirs, 'grp_000000000000000']) {
      const res = await call('POST', '/api/v1/developer/shares', dana, {
        namespace: 'cell-acme',
        slug: 'vault',
        audience: 'users',
        account,
      });
      expect([res.status, res.body.error.code], account).toEqual([404, 'principal_not_found']);
    }
  });

  it('ends with the group: deleting it ends its shares and the tickets opened through them', async () => {
    const id = await group('Short lived');
    await add(id, [accounts.multi]);
    expect(
      (await call('POST', '/api/v1/developer/shares', dana, { namespace: 'cell-acme', slug: 'vault', audience: 'users', account: id }))
        .status,
    ).toBe(201);
    const page = await open('vault', 'multi');
    expect(page.status).toBe(200);
    const ticket = injected(page.text).ticket;
    expect((await call('DELETE', `/api/v1/admin/groups/${id}`, dana)).status).toBe(200);
    expect((await me(ticket)).status).toBe(401);
    expect((await open('vault', 'multi')).status).toBe(403);
  });
});

describe('a resource grant to a group', () => {
  it('gives the group’s members the role, until their membership ends', async () => {
    const id = await group('Granted viewers');
    await add(id, [accounts.gus]);
    const rid = appRid('granted');
    expect((await call('GET', `/api/v1/filesystem/resources/${rid}`, gusKey)).status).toBe(404);
    const granted = await call('POST', `/api/v1/filesystem/resources/${rid}/roles/add`, dana, { principal: id, role: 'viewer' });
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    const seen = await call('GET', `/api/v1/filesystem/resources/${rid}`, gusKey);
    expect([seen.status, seen.body.data.role]).toEqual([200, 'viewer']);
    const page = await open('granted', 'gus');
    expect(page.status).toBe(200);
    const ticket = injected(page.text).ticket;
    expect((await me(ticket)).body.data.role).toBe('viewer');

    await remove(id, [accounts.gus]);
    expect((await call('GET', `/api/v1/filesystem/resources/${rid}`, gusKey)).status).toBe(404);
    expect((await me(ticket)).status).toBe(401);
    expect((await open('granted', 'gus')).status).toBe(403);
  });

  it('refuses a group of another company and a legacy department, each with a clear error', async () => {
    const theirs = await group('Globex viewers', gusKey);
    const rid = appRid('granted');
    const cross = await call('POST', `/api/v1/filesystem/resources/${rid}/roles/add`, dana, { principal: theirs, role: 'viewer' });
    expect([cross.status, cross.body.error.code]).toEqual([404, 'principal_not_found']);
    const dept = await call('POST', `/api/v1/filesystem/resources/${rid}/roles/add`, dana, {
      principal: 'cell-acme:dept:sales',
      role: 'viewer',
    });
    expect([dept.status, dept.body.error.code]).toEqual([400, 'invalid_payload']);
    expect(dept.body.error.message).toMatch(/group/);
    const roles = await call('GET', `/api/v1/filesystem/resources/${rid}/roles`, dana);
    expect(JSON.stringify(roles.body.data)).not.toContain(theirs);
    expect(JSON.stringify(roles.body.data)).not.toContain(':dept:');
  });
});

describe('the principals search', () => {
  it('finds a company’s groups by name for its people, never another company’s', async () => {
    const id = await group('Night Shift');
    const search = (key: string, q: string) => call('GET', `/api/v1/filesystem/principals?q=${encodeURIComponent(q)}`, key);
    const found = await search(dana, 'night');
    expect(found.body.data.principals).toContainEqual({ principal: id, kind: 'group', label: 'Night Shift (cell-acme)' });
    expect(
      (await search(await passwordKey(svc, 'mo'), 'SHIFT')).body.data.principals.map((p: { principal: string }) => p.principal),
    ).toContain(id);
    expect(JSON.stringify((await search(gusKey, 'night')).body.data)).not.toContain(id);
    expect((await search(dana, '%')).body.data.principals.filter((p: { kind: string }) => p.kind === 'group')).toEqual([]);
  });
});
