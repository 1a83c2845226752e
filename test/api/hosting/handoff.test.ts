import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, location, startWithAppHosts } from '../../support/app-hosts.ts';
import { TestClock } from '../../support/clock.ts';
import { release } from '../../support/hosting.ts';
import { bearer, createUser, passwordKey, seedCompanies, signIn } from '../../support/identity.ts';
import type { TestService } from '../../support/service.ts';

// The sign-in hand-off from {base_url} (127.0.0.1) to the app hosts (apps.localhost for
// production at the host's root, test.localhost/d for test), over real HTTP with cookies kept per
// host: the redirect chain, one-time codes bound to host, browser and time, no open redirect,
// and app-host sessions that end with the {base_url} session and the account.

let svc: TestService;
let op: string;
const clock = new TestClock(new Date());
let base: string;
let appsHost: string;
let app: string;

beforeAll(async () => {
  svc = await startWithAppHosts(clock);
  ({ op } = await seedCompanies(svc));
  base = svc.addresses.baseUrl;
  appsHost = new URL(svc.addresses.productionBase).host;
  app = `${svc.addresses.productionBase}/cell-acme/apps/hello`;
  await release(svc, await passwordKey(svc, 'dana'), { namespace: 'cell-acme', slug: 'hello', version: '1.0.0' });
}, 60_000);
afterAll(async () => {
  await svc?.close();
});

/** A client signed in on {base_url} as `login`. */
async function signedIn(login: string): Promise<Client> {
  const client = new Client(svc);
  client.setCookie(new URL(base).host, await signIn(svc, login));
  return client;
}

/** The app host's redeeming address a signed-in client is sent to when it opens `address`. */
async function handoffUrl(client: Client, address = app): Promise<string> {
  const toBase = location(await client.get(address));
  const toApp = location(await client.get(toBase.href));
  expect(toApp.pathname).toBe('/_handoff');
  return toApp.href;
}

describe('the redirect chain', () => {
  it('goes from the app host to sign-in on {base_url}, then back to the app with a session of the app host', async () => {
    const client = new Client(svc);
    const first = await client.follow(app);
    // App host → hand-off on {base_url} → sign-in page (no session yet).
    expect(first.map((r) => r.status)).toEqual([302, 302, 200]);
    const toBase = new URL(first[1]!.url);
    expect(toBase.origin).toBe(base);
    expect(toBase.pathname).toBe('/app-handoff');
    expect(toBase.searchParams.get('to')).toBe(app);
    expect(first[0]!.headers['set-cookie']?.[0]).toMatch(/^svc_handoff_state=\w{33}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=900$/);
    const signinPage = new URL(first[2]!.url);
    expect(signinPage.pathname).toBe('/signin');
    // The sign-in page's safeNext follows only same-origin paths: this is one.
    const next = signinPage.searchParams.get('next')!;
    expect(next).toBe(`${toBase.pathname}${toBase.search}`);

    client.setCookie(new URL(base).host, await signIn(svc, 'dana'));
    const back = await client.follow(`${base}${next}`);
    expect(back.map((r) => [r.status, new URL(r.url).host])).toEqual([
      [302, new URL(base).host],
      [302, appsHost],
      [200, appsHost],
    ]);
    const redeem = back[1]!;
    expect(new URL(redeem.url).searchParams.get('code')).toMatch(/^\w{33}$/);
    expect(redeem.headers.location).toBe('/cell-acme/apps/hello');
    const session = redeem.headers['set-cookie']!.find((c) => c.startsWith('svc_app_session='))!;
    expect(session).toMatch(/^svc_app_session=\w{33}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    expect(redeem.headers['set-cookie']).toContain('svc_handoff_state=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
    expect(back[2]!.text).toContain('<meta name="svc-app-ticket" content="svc-at-');

    // The app host's session opens its pages without another hand-off, and is no session of {base_url}.
    expect((await client.get(`${svc.addresses.productionBase}/cell-acme/apps`)).status).toBe(200);
    const token = client.cookie(appsHost, 'svc_app_session')!;
    const asService = await svc.call('GET', '/api/v1/web/session', { headers: { cookie: `svc_session=${token}` } });
    expect(asService.status).toBe(401);
  });

  it('goes straight to the app host when the visitor already has a session on {base_url}', async () => {
    const client = await signedIn('mo');
    const hops = await client.follow(app);
    expect(hops.map((r) => [r.status, new URL(r.url).pathname])).toEqual([
      [302, '/cell-acme/apps/hello'],
      [302, '/app-handoff'],
      [302, '/_handoff'],
      [200, '/cell-acme/apps/hello'],
    ]);
  });

  it('keeps the query of the address and works for a base under a path (the test tree)', async () => {
    const client = await signedIn('dana');
    const hops = await client.follow(`${svc.addresses.developerBase}/cell-acme/apps/hello?x=1`);
    expect(hops.at(-1)!.status).toBe(200);
    expect(hops.at(-1)!.url).toBe(`${svc.addresses.developerBase}/cell-acme/apps/hello?x=1`);
    expect(client.cookie(new URL(svc.addresses.developerBase).host, 'svc_app_session')).toBeDefined();
    expect(client.cookie(appsHost, 'svc_app_session')).toBeUndefined();
  });
});

describe('one-time codes', () => {
  it('are redeemed once', async () => {
    const client = await signedIn('dana');
    const url = await handoffUrl(client);
    const state = client.cookie(appsHost, 'svc_handoff_state')!;
    expect((await client.get(url)).status).toBe(302);
    client.setCookie(appsHost, `svc_handoff_state=${state}`);
    const again = await client.get(url);
    expect(again.status).toBe(400);
    expect(again.text).toContain('This sign-in link was used, has expired or was opened in another browser.');
  });

  it('are redeemed by one of two concurrent requests', async () => {
    const client = await signedIn('dana');
    const url = await handoffUrl(client);
    const answers = await Promise.all([client.get(url), client.get(url), client.get(url)]);
    expect(answers.map((a) => a.status).sort()).toEqual([302, 400, 400]);
  });

  it('expire after 60 seconds', async () => {
    const client = await signedIn('dana');
    const state = () => client.cookie(appsHost, 'svc_handoff_state')!;
    const late = await handoffUrl(client);
    const lateState = state();
    const inTime = await handoffUrl(client);
    clock.advance({ seconds: 59 });
    expect((await client.get(inTime)).status).toBe(302);
    clock.advance({ seconds: 1 });
    client.setCookie(appsHost, `svc_handoff_state=${lateState}`);
    expect((await client.get(late)).status).toBe(400);
  });

  it('work only on the host they were minted for', async () => {
    const client = await signedIn('dana');
    const url = new URL(await handoffUrl(client));
    const testHost = new URL(svc.addresses.developerBase).host;
    client.setCookie(testHost, `svc_handoff_state=${client.cookie(appsHost, 'svc_handoff_state')}`);
    const elsewhere = await client.get(`http://${testHost}${url.pathname}${url.search}`);
    expect(elsewhere.status).toBe(400);
    expect(client.cookie(testHost, 'svc_app_session')).toBeUndefined();
  });

  it('work only in the browser that started the hand-off (its state cookie), and are spent by any attempt', async () => {
    const client = await signedIn('dana');
    // A victim's browser sent to the attacker's code: no state cookie, or another one.
    const victim = new Client(svc);
    const first = await handoffUrl(client);
    expect((await victim.get(first)).status).toBe(400);
    victim.setCookie(appsHost, `svc_handoff_state=${'x'.repeat(33)}`);
    expect((await victim.get(await handoffUrl(client))).status).toBe(400);
    expect(victim.cookie(appsHost, 'svc_app_session')).toBeUndefined();
    expect((await client.get(first)).status).toBe(400);
  });

  it('are read with GET only (no dry run: nothing is written but the code and the session)', async () => {
    const client = await signedIn('dana');
    const url = await handoffUrl(client);
    for (const address of [url, `${base}/app-handoff?to=${encodeURIComponent(app)}&state=${'a'.repeat(33)}`]) {
      for (const method of ['HEAD', 'POST']) {
        const res = await client.get(address, method);
        expect(res.status).toBe(405);
        expect(res.headers.allow).toBe('GET');
      }
    }
    expect((await client.get(url)).status).toBe(302);
  });
});

describe('no open redirect', () => {
  it('refuses a `to` outside the configured app hosts', async () => {
    const client = await signedIn('dana');
    const port = new URL(base).port;
    const state = 'a'.repeat(33);
    for (const to of [
      'https://evil.example/cell-acme/apps/hello',
      `http://apps.localhost:${port}.evil.example/`,
      `http://evil.example@apps.localhost:${port}/cell-acme/apps/hello`,
      `https://apps.localhost:${port}/cell-acme/apps/hello`,
      `http://apps.localhost:${port}//evil.example/`,
      `http://apps.localhost:${port}/%2F%2Fevil.example/`,
      `http://test.localhost:${port}/cell-acme/apps/hello`,
      `${base}/p/cell-acme/apps/hello`,
      '/cell-acme/apps/hello',
      'javascript:alert(1)',
    ]) {
      const res = await client.get(`${base}/app-handoff?to=${encodeURIComponent(to)}&state=${state}`);
      expect(res.status, to).toBe(400);
      expect(res.headers.location, to).toBeUndefined();
    }
    // The same request with an app address goes on: the refusals were for `to`.
    expect((await client.get(`${base}/app-handoff?to=${encodeURIComponent(app)}&state=${state}`)).status).toBe(302);
  });

  it('refuses a `next` that is not a path on the app host', async () => {
    const client = await signedIn('dana');
    const url = new URL(await handoffUrl(client));
    for (const next of [
      '//evil.example/',
      '/\\evil.example/',
      '/%2F%2Fevil.example/',
      '/%5cevil.example/',
      '/%09/evil.example/',
      'https://evil.example/',
      'evil',
    ]) {
      url.searchParams.set('next', next);
      const res = await client.get(url.href);
      expect(res.status, next).toBe(400);
      expect(res.headers.location, next).toBeUndefined();
    }
    // The code was not spent on the refusals.
    url.searchParams.set('next', '/cell-acme/apps/hello');
    expect(location(await client.get(url.href)).pathname).toBe('/cell-acme/apps/hello');
  });
});

describe('app-host sessions end with', () => {
  async function onAppHost(login: string): Promise<Client> {
    const client = await signedIn(login);
    expect((await client.follow(app)).at(-1)!.status).toBe(200);
    expect((await client.get(app)).status).toBe(200);
    return client;
  }

  it('the {base_url} session they came from', async () => {
    const client = await onAppHost('dana');
    const baseCookie = `svc_session=${client.cookie(new URL(base).host, 'svc_session')}`;
    const out = await svc.call('DELETE', '/api/v1/web/sessions/current', {
      headers: { cookie: baseCookie, origin: base, 'sec-fetch-site': 'same-origin' },
    });
    expect(out.status, JSON.stringify(out.body)).toBeLessThan(300);
    expect(location(await client.get(app)).pathname).toBe('/app-handoff');
  });

  it('the account, when it is disabled', async () => {
    const { id } = await createUser(svc, op, 'doomed', [{ cellId: 'cell-acme', role: 'member' }]);
    const client = await onAppHost('doomed');
    const res = await svc.call('PATCH', `/api/v1/admin/users/${id}`, { body: { status: 'disabled' }, headers: bearer(op) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(location(await client.get(app)).pathname).toBe('/app-handoff');
  });
});
