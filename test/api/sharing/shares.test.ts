import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sha256 } from '../../../domain/security/random.ts';
import { TestClock } from '../../support/clock.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// App shares over HTTP (spec C): company and named-account shares, public links that need login,
// revocation and expiry, the share/* records, and auth/me's roles.

const clock = new TestClock('2026-11-22T10:00:00Z');
let svc: TestService;
let dev: string;
let gusKey: string;
let accounts: Record<'dana' | 'mo' | 'multi' | 'gus', string>;
const SEMANTIC = { types: ['acme.Order', 'acme.Customer'], actions: ['acme.approve'], write: ['acme.Order'] };

beforeAll(async () => {
  svc = await startTestService({ clock });
  ({ accounts } = await seedCompanies(svc));
  dev = await passwordKey(svc, 'dana');
  gusKey = await passwordKey(svc, 'gus');
  const manifest = (auth: object) => ({ auth, sdk: ['semantic'], semantic: SEMANTIC });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'secret', version: '1.0.0', manifest: manifest({ access: 'restricted' }) });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'hello', version: '1.0.0', manifest: manifest({}) });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'insiders', version: '1.0.0', manifest: manifest({ publicLink: 'members' }) });
}, 60_000);
afterAll(() => svc.close());
beforeEach(async () => {
  clock.set('2026-11-22T10:00:00Z');
  await resetRateLimits(svc);
});

const share = (body: object, key = dev, headers: Record<string, string> = {}) =>
  svc.call('POST', '/api/v1/developer/shares', { body, headers: { ...bearer(key), ...headers } });
const app = (slug: string) => ({ namespace: 'cell-acme', slug });
const open = async (path: string, login: string) => rawGet(`${svc.addresses.productionBase}${path}`, { cookie: await signIn(svc, login) });
const me = (ticket: string) => svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(ticket) });

describe('named-account shares', () => {
  it('open a restricted app to an account of another company, as editor', async () => {
    expect((await open('/cell-acme/apps/secret', 'gus')).status).toBe(403);
    const res = await share({ ...app('secret'), audience: 'users', account: 'gus' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({ created: true, share: { audience: 'users', role: 'editor', account: { username: 'gus' } } });
    const page = await open('/cell-acme/apps/secret', 'gus');
    expect(page.status).toBe(200);
    const who = await me(injected(page.text).ticket);
    expect(who.body.data).toMatchObject({
      identity: { username: 'gus' },
      role: 'editor',
      member: false,
      signedIn: true,
      app: app('secret'),
      channel: 'production',
      version: '1.0.0',
      viaShare: true,
      permissions: { read: SEMANTIC.types, actions: SEMANTIC.actions, write: SEMANTIC.write, share: false },
    });
    // The test channel stays the company developers'.
    const test = await rawGet(`${svc.addresses.developerBase}/cell-acme/apps/secret`, { cookie: await signIn(svc, 'gus') });
    expect(test.status).toBe(403);
  });

  it('a repeated share changes the expiry of the same share; an expired share stops by itself', async () => {
    const first = await share({ ...app('hello'), audience: 'users', account: 'gus@example.com', expiresInDays: 1 });
    expect(first.status).toBe(201);
    const again = await share({ ...app('hello'), audience: 'users', account: accounts.gus, expiresInDays: 3 });
    expect(again.status).toBe(200);
    expect(again.body.data.created).toBe(false);
    expect(again.body.data.share.id).toBe(first.body.data.share.id);
    expect(again.body.data.share.expiresAt).toBe('2026-11-25T10:00:00.000Z');
    const page = await open('/cell-acme/apps/hello', 'gus');
    expect(page.status).toBe(200);
    const ticket = injected(page.text).ticket;

    clock.set('2026-11-25T10:00:00Z');
    expect((await open('/cell-acme/apps/hello', 'gus')).status).toBe(403);
    expect((await me(ticket)).status).toBe(401);
    const listed = await svc.call('GET', '/api/v1/developer/shares?namespace=cell-acme&slug=hello', { headers: bearer(dev) });
    expect(listed.body.data.shares.map((s: { id: string }) => s.id)).not.toContain(first.body.data.share.id);
    // Sharing again after expiry makes a new share.
    const renewed = await share({ ...app('hello'), audience: 'users', account: 'gus' });
    expect([renewed.status, renewed.body.data.created]).toEqual([201, true]);
    expect(renewed.body.data.share.id).not.toBe(first.body.data.share.id);
    await svc.call('DELETE', `/api/v1/developer/shares/${renewed.body.data.share.id}?namespace=cell-acme&slug=hello`, {
      headers: bearer(dev),
    });
  });

  it('a revoke stops the grant and its tickets at once', async () => {
    const res = await share({ ...app('secret'), audience: 'users', account: 'gus' });
    const page = await open('/cell-acme/apps/secret', 'gus');
    const ticket = injected(page.text).ticket;
    const revoked = await svc.call('DELETE', `/api/v1/developer/shares/${res.body.data.share.id}?namespace=cell-acme&slug=secret`, {
      headers: bearer(dev),
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body.data).toMatchObject({ revoked: true, alreadyRevoked: false });
    expect((await open('/cell-acme/apps/secret', 'gus')).status).toBe(403);
    expect((await me(ticket)).status).toBe(401);
    const renewal = await svc.call('POST', '/api/v1/developer/apps/cell-acme/secret/tickets', { headers: bearer(ticket) });
    expect(renewal.status).toBe(401);
    const twice = await svc.call('DELETE', `/api/v1/developer/shares/${res.body.data.share.id}?namespace=cell-acme&slug=secret`, {
      headers: bearer(dev),
    });
    expect(twice.body.data.alreadyRevoked).toBe(true);
  });

  it('a revoke by the share id alone finds the app from the share; the policy still decides (was invalid_payload)', async () => {
    const res = await share({ ...app('secret'), audience: 'users', account: 'gus' });
    const id: string = res.body.data.share.id;
    const revoke = (key: string, query = '') => svc.call('DELETE', `/api/v1/developer/shares/${id}${query}`, { headers: bearer(key) });
    const outsider = await revoke(gusKey);
    expect([outsider.status, outsider.body.error.code]).toEqual([403, 'forbidden']);
    const halfNamed = await revoke(dev, '?namespace=cell-acme');
    expect([halfNamed.status, halfNamed.body.error.code]).toEqual([400, 'invalid_payload']);
    const otherApp = await revoke(dev, '?namespace=cell-acme&slug=hello');
    expect([otherApp.status, otherApp.body.error.code]).toEqual([404, 'not_found']);
    expect((await open('/cell-acme/apps/secret', 'gus')).status).toBe(200);

    const revoked = await revoke(dev);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body.data).toMatchObject({ revoked: true, alreadyRevoked: false, share: { id, account: { username: 'gus' } } });
    expect((await open('/cell-acme/apps/secret', 'gus')).status).toBe(403);
    expect((await revoke(dev)).body.data.alreadyRevoked).toBe(true);
    const unknown = await svc.call('DELETE', '/api/v1/developer/shares/shr_0000000000000000', { headers: bearer(dev) });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
  });
});

describe('company shares', () => {
  it('open a restricted app to the company’s members, who keep their member role', async () => {
    expect((await open('/cell-acme/apps/secret', 'mo')).status).toBe(403);
    const res = await share({ ...app('secret'), audience: 'company' });
    expect(res.status).toBe(201);
    expect((await share({ ...app('secret'), audience: 'company' })).body.data.created).toBe(false);
    const page = await open('/cell-acme/apps/secret', 'mo');
    expect(page.status).toBe(200);
    expect((await me(injected(page.text).ticket)).body.data).toMatchObject({ role: 'member', member: true });
    // Other companies gain nothing from it.
    expect((await open('/cell-acme/apps/secret', 'gus')).status).toBe(403);
    await svc.call('DELETE', `/api/v1/developer/shares/${res.body.data.share.id}?namespace=cell-acme&slug=secret`, {
      headers: bearer(dev),
    });
    expect((await open('/cell-acme/apps/secret', 'mo')).status).toBe(403);
  });
});

describe('shares with another company', () => {
  const revoke = (id: string) => svc.call('DELETE', `/api/v1/developer/shares/${id}`, { headers: bearer(dev) });

  it('admit its people to the production app as editors; a revoke stops them and their tickets at once', async () => {
    expect((await open('/cell-acme/apps/secret', 'gus')).status).toBe(403);
    const res = await share({ ...app('secret'), audience: 'company', company: 'cell-globex' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({
      created: true,
      share: { audience: 'company', role: 'editor', account: null, company: { cellId: 'cell-globex', name: 'Globex' } },
    });
    const page = await open('/cell-acme/apps/secret', 'gus');
    expect(page.status).toBe(200);
    const ticket = injected(page.text).ticket;
    expect((await me(ticket)).body.data).toMatchObject({ role: 'editor', member: false, viaShare: true, channel: 'production' });
    // Acme's own members are not its audience, and the test channel stays Acme's developers'.
    expect((await open('/cell-acme/apps/secret', 'mo')).status).toBe(403);
    const test = await rawGet(`${svc.addresses.developerBase}/cell-acme/apps/secret`, { cookie: await signIn(svc, 'gus') });
    expect(test.status).toBe(403);
    // Globex's people find it under "Shared with you".
    const catalog = await rawGet(`${svc.addresses.productionBase}/cell-globex/apps`, { cookie: await signIn(svc, 'gus') });
    expect(catalog.text).toContain('Shared with you');
    expect(catalog.text).toContain('/cell-acme/apps/secret');

    const revoked = await revoke(res.body.data.share.id);
    expect([revoked.status, revoked.body.data.alreadyRevoked]).toEqual([200, false]);
    expect((await open('/cell-acme/apps/secret', 'gus')).status).toBe(403);
    expect((await me(ticket)).status).toBe(401);
  });

  it('a repeat for the same company changes its expiry; each company has its own share', async () => {
    const first = await share({ ...app('hello'), audience: 'company', company: 'cell-globex', expiresInDays: 2 });
    const again = await share({ ...app('hello'), audience: 'company', company: 'cell-globex', expiresInDays: 5 });
    expect([again.status, again.body.data.created, again.body.data.share.id]).toEqual([200, false, first.body.data.share.id]);
    expect(again.body.data.share.expiresAt).toBe('2026-11-27T10:00:00.000Z');
    const own = await share({ ...app('hello'), audience: 'company' });
    expect(own.body.data).toMatchObject({ created: true, share: { company: { cellId: 'cell-acme', name: 'Acme' }, expiresAt: null } });
    expect(own.body.data.share.id).not.toBe(first.body.data.share.id);

    await revoke(first.body.data.share.id);
    await revoke(own.body.data.share.id);
    // The test clock stands still, so the records are told apart by name rather than time.
    const records = await svc.database.db
      .selectFrom('app_log_events')
      .select(['kind', 'name', 'data'])
      .where(sql`data->>'shareId'`, '=', first.body.data.share.id)
      .orderBy('name')
      .execute();
    const data = (expiresAt: string) => ({
      shareId: first.body.data.share.id,
      audience: 'company',
      object: 'cell-globex',
      role: 'editor',
      expiresAt,
    });
    expect(records).toEqual([
      { kind: 'share', name: 'create', data: data('2026-11-24T10:00:00.000Z') },
      { kind: 'share', name: 'revoke', data: data('2026-11-27T10:00:00.000Z') },
      { kind: 'share', name: 'update', data: data('2026-11-27T10:00:00.000Z') },
    ]);
  });

  it('an unknown company is organization_not_found, a bad cell id invalid_payload; a dry run changes nothing', async () => {
    const unknown = await share({ ...app('hello'), audience: 'company', company: 'cell-nowhere' });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'organization_not_found']);
    const malformed = await share({ ...app('hello'), audience: 'company', company: 'globex' });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'invalid_payload']);
    const before = await svc.database.db.selectFrom('app_shares').selectAll().execute();
    const events = await svc.database.db.selectFrom('app_log_events').select('id').execute();
    const dry = await share({ ...app('secret'), audience: 'company', company: 'cell-globex' }, dev, { 'x-svc-dry-run': 'true' });
    expect(dry.status, JSON.stringify(dry.body)).toBe(202);
    expect(await svc.database.db.selectFrom('app_shares').selectAll().execute()).toEqual(before);
    expect(await svc.database.db.selectFrom('app_log_events').select('id').execute()).toHaveLength(events.length);
    expect((await open('/cell-acme/apps/secret', 'gus')).status).toBe(403);
    // A dry run of an unknown company answers as the real call would.
    const dryUnknown = await share({ ...app('hello'), audience: 'company', company: 'cell-nowhere' }, dev, { 'x-svc-dry-run': 'true' });
    expect(dryUnknown.body.error?.code).toBe('organization_not_found');
  });
});

describe('public links', () => {
  it('return the token once, store only its hash, and list a prefix', async () => {
    const res = await share({ ...app('hello'), audience: 'public' });
    expect(res.status).toBe(201);
    const url: string = res.body.data.url;
    expect(url).toMatch(new RegExp(`^${svc.addresses.productionBase}/s/[0-9A-Za-z]{33}$`));
    const token = url.split('/s/')[1]!;
    expect(res.body.data.share).toMatchObject({ audience: 'public', role: 'viewer', linkPrefix: token.slice(0, 8) });

    const row = await svc.database.db
      .selectFrom('app_shares')
      .selectAll()
      .where('id', '=', res.body.data.share.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toEqual(sha256(token));
    expect(JSON.stringify(row)).not.toContain(token);
    const listed = await svc.call('GET', '/api/v1/developer/shares?namespace=cell-acme&slug=hello', { headers: bearer(dev) });
    expect(JSON.stringify(listed.body)).not.toContain(token);
    expect(listed.body.data.shares.find((s: { id: string }) => s.id === res.body.data.share.id)).toMatchObject({
      linkPrefix: token.slice(0, 8),
    });
    // Each public share is a new link.
    const second = await share({ ...app('hello'), audience: 'public' });
    expect(second.body.data.url).not.toBe(url);
    expect(second.body.data.share.id).not.toBe(res.body.data.share.id);
  });

  it('need login, then open production read-only for outsiders and with the company role for members', async () => {
    const res = await share({ ...app('secret'), audience: 'public' });
    const path = new URL(res.body.data.url).pathname;
    const anonymous = await rawGet(res.body.data.url);
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.location).toContain('/signin?next=');

    const outsider = await open(path.replace('/p', ''), 'gus');
    expect(outsider.status).toBe(200);
    expect(outsider.headers['referrer-policy']).toBe('no-referrer');
    const viewer = (await me(injected(outsider.text).ticket)).body.data;
    expect(viewer).toMatchObject({ role: 'viewer', member: false, channel: 'production', viaShare: true });
    expect(viewer.permissions).toEqual({ read: SEMANTIC.types, actions: [], write: [], share: false });
    const insider = await open(path.replace('/p', ''), 'mo');
    expect((await me(injected(insider.text).ticket)).body.data.role).toBe('member');
    // The usage/open record says the open came through the share.
    await svc.deps.opens.flush();
    const opens = await svc.database.db
      .selectFrom('app_log_events')
      .select('id')
      .where('name', '=', 'open')
      .where(sql`data->>'viaShare'`, '=', res.body.data.share.id)
      .execute();
    expect(opens.length).toBe(2);
  });

  it('a revoke refuses the next open and ends the tickets opened through the link', async () => {
    const res = await share({ ...app('hello'), audience: 'public' });
    const path = new URL(res.body.data.url).pathname.replace('/p', '');
    const page = await open(path, 'gus');
    const ticket = injected(page.text).ticket;
    await svc.call('DELETE', `/api/v1/developer/shares/${res.body.data.share.id}?namespace=cell-acme&slug=hello`, { headers: bearer(dev) });
    expect((await open(path, 'gus')).status).toBe(404);
    expect((await me(ticket)).status).toBe(401);
    expect((await open('/s/000000000000000000000000000000000', 'gus')).status).toBe(404);
  });

  it('publicLink members: outsiders are refused, company people open', async () => {
    const res = await share({ ...app('insiders'), audience: 'public' });
    const path = new URL(res.body.data.url).pathname.replace('/p', '');
    expect((await open(path, 'gus')).status).toBe(403);
    expect((await open(path, 'mo')).status).toBe(200);
  });

  it('a dry run issues no link and stores nothing', async () => {
    const before = await svc.database.db.selectFrom('app_shares').select('id').execute();
    const res = await share({ ...app('hello'), audience: 'public' }, dev, { 'x-svc-dry-run': 'true' });
    expect(res.status).toBe(202);
    expect(res.body.data.plan.url).toBeUndefined();
    expect(await svc.database.db.selectFrom('app_shares').select('id').execute()).toHaveLength(before.length);
  });
});

describe('who may share', () => {
  it('app tickets never manage shares, a developer’s neither (sharing is a key’s or a web session’s)', async () => {
    const devTicket = injected((await open('/cell-acme/apps/hello', 'dana')).text).ticket;
    const listed = await svc.call('GET', '/api/v1/developer/shares?namespace=cell-acme&slug=hello', { headers: bearer(devTicket) });
    expect([listed.status, listed.body.error.code]).toEqual([403, 'forbidden']);
    const memberTicket = injected((await open('/cell-acme/apps/hello', 'mo')).text).ticket;
    const refused = await svc.call('POST', '/api/v1/developer/shares', { body: { audience: 'public' }, headers: bearer(memberTicket) });
    expect(refused.status).toBe(403);
    const web = await svc.call('GET', '/api/v1/developer/shares?namespace=cell-acme&slug=hello', {
      headers: browser(await signIn(svc, 'dana'), svc),
    });
    expect(web.status, JSON.stringify(web.body)).toBe(200);
  });

  it('a key of another company cannot share, and a key must name the app', async () => {
    expect((await share({ ...app('hello'), audience: 'public' }, gusKey)).status).toBe(403);
    const unnamed = await share({ audience: 'public' });
    expect([unnamed.status, unnamed.body.error.code]).toEqual([400, 'invalid_payload']);
    expect((await share({ ...app('nope'), audience: 'public' })).status).toBe(404);
    const unknown = await share({ ...app('hello'), audience: 'users', account: 'nobody-here' });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'user_not_found']);
    const viewerRole = await share({ ...app('hello'), audience: 'users', account: 'gus', role: 'viewer' });
    expect(viewerRole.status).toBe(400);
  });

  it('every share and revoke writes a share/* record with object and role', async () => {
    const res = await share({ ...app('hello'), audience: 'users', account: 'multi' });
    await svc.call('DELETE', `/api/v1/developer/shares/${res.body.data.share.id}?namespace=cell-acme&slug=hello`, { headers: bearer(dev) });
    const records = await svc.database.db
      .selectFrom('app_log_events')
      .select(['kind', 'name', 'data', 'account_id'])
      .where(sql`data->>'shareId'`, '=', res.body.data.share.id)
      .orderBy('at')
      .execute();
    const data = { shareId: res.body.data.share.id, audience: 'users', object: accounts.multi, role: 'editor', expiresAt: null };
    expect(records).toEqual([
      { kind: 'share', name: 'create', data, account_id: accounts.dana },
      { kind: 'share', name: 'revoke', data, account_id: accounts.dana },
    ]);
  });
});

describe('auth/me', () => {
  it('with a key: the key’s company role, or the role for a named app', async () => {
    const plain = await svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(dev) });
    expect(plain.body.data).toMatchObject({ role: 'developer', member: true, app: null, signedIn: true });
    const named = await svc.call('GET', '/api/v1/developer/auth/me?namespace=cell-acme&slug=secret', { headers: bearer(dev) });
    expect(named.body.data).toMatchObject({ role: 'developer', permissions: { share: true, write: SEMANTIC.types } });
    const refused = await svc.call('GET', '/api/v1/developer/auth/me?namespace=cell-acme&slug=secret', { headers: bearer(gusKey) });
    expect(refused.status).toBe(403);
  });
});
