import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKey, isWellFormedKey } from '../../../domain/keys/key-format.ts';
import { bearer, browser, createUser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
let op: string;
let dev: { id: string };

beforeAll(async () => {
  svc = await startTestService();
  const seeded = await seedCompanies(svc);
  op = seeded.op;
  dev = { id: seeded.accounts.dana };
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

describe('key format', () => {
  it('carries 192 random bits and a checksum that catches any single changed character', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateKey().plaintext));
    expect(keys.size).toBe(200);
    for (const key of [...keys].slice(0, 20)) {
      expect(isWellFormedKey(key)).toBe(true);
      for (let i = 7; i < key.length; i++) {
        const swapped = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
        expect(isWellFormedKey(swapped)).toBe(false);
      }
      expect(isWellFormedKey(key.slice(0, -1))).toBe(false);
    }
  });

  it('refuses a mistyped key as malformed, before any lookup', async () => {
    const key = await passwordKey(svc, 'dana');
    const typo = key.slice(0, 20) + (key[20] === 'x' ? 'y' : 'x') + key.slice(21);
    const res = await svc.call('GET', '/api/v1/developer/me', { headers: bearer(typo) });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.body.error.message).toMatch(/malformed/);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('GET /api/v1/developer/me', () => {
  it('tells a developer its company, role, key prefix and writable namespaces', async () => {
    const key = await passwordKey(svc, 'dana');
    const res = await svc.call('GET', '/api/v1/developer/me', { headers: bearer(key) });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      account: { id: dev.id, username: 'dana', email: 'dana@example.com', platformStaff: false },
      company: { cellId: 'cell-acme', name: 'Acme' },
      role: 'developer',
      keyPrefix: key.slice(0, 15),
      writableNamespaces: ['cell-acme'],
    });
  });

  it('gives members no writable namespace', async () => {
    const res = await svc.call('GET', '/api/v1/developer/me', { headers: bearer(await passwordKey(svc, 'mo')) });
    expect(res.body.data).toMatchObject({ role: 'member', writableNamespaces: [] });
  });

  it('requires a key', async () => {
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer svc-dk-short' }] as Record<string, string>[]) {
      const res = await svc.call('GET', '/api/v1/developer/me', { headers });
      expect([res.status, res.body.error.code]).toEqual([401, 'unauthorized']);
    }
  });

  it('follows the account’s license today: a demoted developer’s key acts as a member, a removed one stops', async () => {
    const user = await createUser(svc, op, 'shifty', [{ cellId: 'cell-acme', role: 'developer' }]);
    const key = await passwordKey(svc, 'shifty');
    await svc.call('PUT', `/api/v1/admin/users/${user.id}/organizations/cell-acme`, { body: { role: 'member' }, headers: bearer(op) });
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).body.data.role).toBe('member');
    // Made company admin, the developer-issued key acts as a developer again.
    await svc.call('PUT', `/api/v1/admin/users/${user.id}/organizations/cell-acme`, {
      body: { role: 'member', admin: true },
      headers: bearer(op),
    });
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).body.data.role).toBe('developer');
    await svc.call('DELETE', `/api/v1/admin/users/${user.id}/organizations/cell-acme`, { headers: bearer(op) });
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).status).toBe(401);
  });

  it('never lets a member key act above member, even after a promotion', async () => {
    const user = await createUser(svc, op, 'climber', [{ cellId: 'cell-acme', role: 'member' }]);
    const key = await passwordKey(svc, 'climber');
    await svc.call('PUT', `/api/v1/admin/users/${user.id}/organizations/cell-acme`, { body: { role: 'developer' }, headers: bearer(op) });
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).body.data.role).toBe('member');
  });

  it('stops a disabled account’s keys at once', async () => {
    const user = await createUser(svc, op, 'leaver', [{ cellId: 'cell-acme', role: 'developer' }]);
    const key = await passwordKey(svc, 'leaver');
    await svc.call('PATCH', `/api/v1/admin/users/${user.id}`, { body: { status: 'disabled' }, headers: bearer(op) });
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).status).toBe(401);
  });
});

describe('GET /api/v1/developer/keys and DELETE /api/v1/developer/keys/{keyId}', () => {
  it('lists the caller’s keys by prefix only, marking the calling one', async () => {
    await createUser(svc, op, 'lister', [{ cellId: 'cell-acme', role: 'developer' }]);
    const first = await passwordKey(svc, 'lister');
    const second = await passwordKey(svc, 'lister');
    const res = await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(second) });
    expect(res.status).toBe(200);
    expect(res.body.data.keys).toHaveLength(2);
    expect(res.body.data.keys.map((k: { prefix: string }) => k.prefix).sort()).toEqual([first.slice(0, 15), second.slice(0, 15)].sort());
    expect(res.body.data.keys.find((k: { current: boolean }) => k.current).prefix).toBe(second.slice(0, 15));
    expect(JSON.stringify(res.body)).not.toContain(first.slice(15));
    expect(res.body.data.keys[0]).toMatchObject({ role: 'developer', clientName: 'svc client', company: { cellId: 'cell-acme' } });
  });

  it('lists keys for a signed-in browser session too', async () => {
    await createUser(svc, op, 'webby', [{ cellId: 'cell-acme', role: 'member' }]);
    await passwordKey(svc, 'webby');
    const cookie = await signIn(svc, 'webby');
    const res = await svc.call('GET', '/api/v1/developer/keys', { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.body.data.keys).toHaveLength(1);
    expect(res.body.data.keys[0].current).toBe(false);
  });

  it('revokes idempotently; the revoked key gets 401 at once', async () => {
    await createUser(svc, op, 'revoker', [{ cellId: 'cell-acme', role: 'developer' }]);
    const victim = await passwordKey(svc, 'revoker');
    const keeper = await passwordKey(svc, 'revoker');
    const listed = await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(keeper) });
    const keyId = listed.body.data.keys.find((k: { current: boolean }) => !k.current).keyId;

    const first = await svc.call('DELETE', `/api/v1/developer/keys/${keyId}`, { headers: bearer(keeper) });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ keyId, revoked: true, alreadyRevoked: false });
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(victim) })).status).toBe(401);
    const again = await svc.call('DELETE', `/api/v1/developer/keys/${keyId}`, { headers: bearer(keeper) });
    expect(again.body.data.alreadyRevoked).toBe(true);
    const remaining = await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(keeper) });
    expect(remaining.body.data.keys.map((k: { keyId: string }) => k.keyId)).not.toContain(keyId);
  });

  it('revoking one’s own calling key works, and that key stops', async () => {
    await createUser(svc, op, 'selfrevoke', [{ cellId: 'cell-acme', role: 'member' }]);
    const key = await passwordKey(svc, 'selfrevoke');
    const keyId = (await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(key) })).body.data.keys[0].keyId;
    expect((await svc.call('DELETE', `/api/v1/developer/keys/${keyId}`, { headers: bearer(key) })).status).toBe(200);
    expect((await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(key) })).status).toBe(401);
  });

  it('answers forbidden for another account’s key, agent_key_not_found for none, invalid_path for a bad id', async () => {
    const danaKey = await passwordKey(svc, 'dana');
    const moKey = await passwordKey(svc, 'mo');
    const moKeyId = (await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(moKey) })).body.data.keys[0].keyId;
    const other = await svc.call('DELETE', `/api/v1/developer/keys/${moKeyId}`, { headers: bearer(danaKey) });
    expect([other.status, other.body.error.code]).toEqual([403, 'forbidden']);
    const none = await svc.call('DELETE', '/api/v1/developer/keys/key_0000000000000000', { headers: bearer(danaKey) });
    expect([none.status, none.body.error.code]).toEqual([404, 'agent_key_not_found']);
    const bad = await svc.call('DELETE', '/api/v1/developer/keys/not-a-key', { headers: bearer(danaKey) });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_path']);
  });

  it('revokes from a browser session only with a same-origin request', async () => {
    await createUser(svc, op, 'browserrevoke', [{ cellId: 'cell-acme', role: 'member' }]);
    const key = await passwordKey(svc, 'browserrevoke');
    const cookie = await signIn(svc, 'browserrevoke');
    const keyId = (await svc.call('GET', '/api/v1/developer/keys', { headers: { cookie } })).body.data.keys[0].keyId;
    const crossSite = await svc.call('DELETE', `/api/v1/developer/keys/${keyId}`, { headers: { cookie, 'sec-fetch-site': 'cross-site' } });
    expect([crossSite.status, crossSite.body.error.code]).toEqual([403, 'forbidden']);
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).status).toBe(200);
    const sameSite = await svc.call('DELETE', `/api/v1/developer/keys/${keyId}`, { headers: browser(cookie, svc) });
    expect(sameSite.status).toBe(200);
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).status).toBe(401);
  });
});
