import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { injected, rawGet, release, ticketCookie } from '../../support/hosting.ts';
import { createUser, operatorKey, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startBlobBackend, type TestS3 } from '../../support/s3.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// The page trees over HTTP: addresses, who may open what, the isolation headers, versioned files
// with their caching and compression, the generated pages and the catalogs. Everything runs once
// per blob store backend (PostgreSQL, and S3 on a loopback S3 server).

let svc: TestService;
let cookies: Record<'dana' | 'mo' | 'gus' | 'loner', string>;
let dev: string;
let P: string;
let D: string;
const SCRIPT = `console.log(${JSON.stringify('hosted '.repeat(800))});\n`;
const FILES = [
  {
    path: 'index.html',
    encoding: 'utf8' as const,
    content: '<!doctype html><html><head><title>hello</title></head><body><script src="app.js"></script></body></html>',
  },
  { path: 'app.js', encoding: 'utf8' as const, content: SCRIPT },
  {
    path: 'img/dot.png',
    encoding: 'base64' as const,
    content: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  },
];

let s3: TestS3 | undefined;

/** The version a page's base is for (a ticketed page's base carries its cookie's secret too). */
const digestOf = (base: string) => /\/_v\/([0-9a-f]{16})[-/]/.exec(base)?.[1];

describe.each(['postgres', 's3'] as const)('with the %s blob store', (backend) => {
  beforeAll(async () => {
    s3 = await startBlobBackend(backend);
    svc = await startTestService({ env: s3?.env('hosting') ?? {} });
    const { op } = await seedCompanies(svc);
    await createUser(svc, op, 'loner', []);
    ({ productionBase: P, developerBase: D } = svc.addresses);
    dev = await passwordKey(svc, 'dana');
    await release(svc, dev, { namespace: 'cell-acme', slug: 'hello', version: '1.0.0', files: FILES, manifest: { summary: 'Says hello' } });
    await release(svc, dev, {
      namespace: 'cell-acme',
      slug: 'secret',
      version: '1.0.0',
      manifest: { auth: { access: 'restricted' }, cdn: ['unpkg.com'], sdk: ['modeling'], permissions: { camera: true } },
      files: [{ path: 'index.html', encoding: 'utf8', content: '<p>secret</p>' }],
    });
    await release(svc, dev, { namespace: 'cell-acme', slug: 'untested', version: '1.0.0' }, 'test');
    await release(svc, await operatorKey(svc), { namespace: 'public', slug: 'official', version: '2.0.0' });
    cookies = {
      dana: await signIn(svc, 'dana'),
      mo: await signIn(svc, 'mo'),
      gus: await signIn(svc, 'gus'),
      loner: await signIn(svc, 'loner'),
    };
  }, 60_000);
  afterAll(async () => {
    await svc.close();
    await s3?.close();
    s3 = undefined;
  });
  beforeEach(() => resetRateLimits(svc));

  const open = (url: string, who?: keyof typeof cookies, headers: Record<string, string> = {}) =>
    rawGet(url, { ...(who ? { cookie: cookies[who] } : {}), ...headers });

  describe('entry page', () => {
    it('is never cached, carries the version base and a ticket, and every isolation header', async () => {
      const res = await open(`${P}/cell-acme/apps/hello`, 'mo');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      const { base, ticket } = injected(res.text);
      // On a ticketed page the version's digest16 and the cookie's secret.
      expect(base).toMatch(new RegExp(`^${P}/cell-acme/apps/hello/_v/[0-9a-f]{16}-[0-9a-f]{16}/$`));
      expect(ticket).toMatch(/^svc-at-[0-9A-Za-z]{33}$/);
      // The base comes first in the head, before any relative address.
      expect(res.text).toMatch(/^<!doctype html><html><head><base href=/);
      const csp = res.headers['content-security-policy']!;
      expect(csp).toContain('sandbox allow-scripts allow-forms allow-popups allow-downloads;');
      expect(csp).not.toContain('allow-same-origin');
      expect(csp).toContain(`script-src ${base} ${svc.addresses.baseUrl}/developer/sdk/v1/;`);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain(`base-uri ${base}`);
      expect(res.headers['permissions-policy']).toContain('camera=(), microphone=()');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
      const cookie = res.headers['set-cookie']!.find((c) => c.startsWith('svc_app_ticket='))!;
      // Path is the page's own base, so every open page keeps its cookie; no Max-Age: the page renews its ticket.
      expect(cookie).toBe(`svc_app_ticket=${ticket}; Path=${new URL(base).pathname}; HttpOnly; Secure; SameSite=None`);
    });

    it('widens the policy for the manifest: cdn hosts, modeling (wasm, asset host), camera', async () => {
      const res = await open(`${P}/cell-acme/apps/secret`, 'dana');
      expect(res.status).toBe(200);
      const csp = res.headers['content-security-policy']!;
      expect(csp).toMatch(/script-src \S+ \S+\/developer\/sdk\/v1\/ https:\/\/unpkg\.com\/ 'wasm-unsafe-eval';/);
      expect(csp).not.toContain('cdn.jsdelivr.net');
      expect(csp).toContain('img-src');
      expect(csp).toMatch(/connect-src [^;]*https:\/\/assets\.world-model\.svc\.dev/);
      expect(res.headers['permissions-policy']).toContain('camera=(self), microphone=()');
      // An entry page without a head gets the base at the very start.
      expect(res.text).toMatch(
        /^<base href="[^"]+"><meta name="svc-app-ticket" content="[^"]+"><meta name="svc-app" content="cell-acme\/secret"><meta name="svc-app-ticket-expires" content="[^"]+"><p>secret<\/p>$/,
      );
    });

    it('accepts a developer key as Bearer, and refuses a wrong one with 401', async () => {
      expect((await rawGet(`${P}/cell-acme/apps/hello`, { authorization: `Bearer ${dev}` })).status).toBe(200);
      const bad = await rawGet(`${P}/cell-acme/apps/hello`, { authorization: 'Bearer svc-dk-nonsense' });
      expect(bad.status).toBe(401);
      expect(bad.headers['content-type']).toBe('text/html; charset=utf-8');
    });

    it('sends a browser without a session to sign in, and back to the same address', async () => {
      const res = await open(`${P}/cell-acme/apps/hello/?x=1`);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`${svc.addresses.baseUrl}/signin?next=${encodeURIComponent('/p/cell-acme/apps/hello/?x=1')}`);
    });

    it('records opens: visitor, version, channel, no share, and how many opens within the minute', async () => {
      const opens = () =>
        svc.database.db
          .selectFrom('app_log_events as o')
          .innerJoin('app_versions as v', 'v.id', 'o.version_id')
          .innerJoin('accounts as a', 'a.id', 'o.account_id')
          .select(['a.username', 'v.version', 'o.channel', 'o.data'])
          .where('o.kind', '=', 'usage')
          .where('o.name', '=', 'open')
          .where('o.source', '=', 'service')
          .orderBy('o.at', 'desc')
          .execute();
      await svc.deps.opens.flush();
      const before = await opens();
      await open(`${P}/cell-acme/apps/hello`, 'mo');
      await open(`${P}/cell-acme/apps/hello`, 'mo');
      expect(await opens()).toEqual(before);
      await svc.deps.opens.flush();
      const after = await opens();
      expect(after.length).toBe(before.length + 1);
      expect(after[0]).toEqual({ username: 'mo', version: '1.0.0', channel: 'production', data: { viaShare: null, opens: 2 } });
    });

    it('answers HEAD with the headers alone, opening nothing: no ticket, no record', async () => {
      const count = async () => {
        await svc.deps.opens.flush();
        return (await svc.database.db.selectFrom('app_log_events').select('id').where('name', '=', 'open').execute()).length;
      };
      const before = await count();
      const res = await rawGet(`${P}/cell-acme/apps/hello`, { cookie: cookies.mo }, 'HEAD');
      expect(res.status).toBe(200);
      expect(res.headers['content-security-policy']).toContain('sandbox allow-scripts');
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(await count()).toBe(before);
      expect((await rawGet(`${P}/cell-acme/apps/hello`, { cookie: cookies.gus }, 'HEAD')).status).toBe(403);
    });
  });

  describe('who may open', () => {
    it('refuses another company with a 403 page saying why and how', async () => {
      const res = await open(`${P}/cell-acme/apps/hello`, 'gus');
      expect(res.status).toBe(403);
      expect(res.text).toContain('you are not a member of that company');
      expect(res.text).toContain('Ask an admin of that company for a license');
      expect(res.headers['content-security-policy']).toMatch(/^sandbox;/);
    });

    it('refuses members a restricted app; its developers open it', async () => {
      const res = await open(`${P}/cell-acme/apps/secret`, 'mo');
      expect(res.status).toBe(403);
      expect(res.text).toContain('restricted to the company’s developers');
      expect((await open(`${P}/cell-acme/apps/secret`, 'dana')).status).toBe(200);
    });

    it('sends a member from the test address to production; developers open test', async () => {
      const res = await open(`${D}/cell-acme/apps/hello`, 'mo');
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`${P}/cell-acme/apps/hello`);
      expect((await open(`${D}/cell-acme/apps/hello`, 'dana')).status).toBe(200);
    });

    it('opens official apps to members of any company, not to accounts in none', async () => {
      expect((await open(`${P}/apps/official`, 'gus')).status).toBe(200);
      const res = await open(`${P}/apps/official`, 'loner');
      expect(res.status).toBe(403);
      expect(res.text).toContain('open to members of a company');
    });

    it('answers 404 for an app or a channel with nothing in it', async () => {
      expect((await open(`${P}/cell-acme/apps/nothing-here`, 'dana')).status).toBe(404);
      expect((await open(`${P}/cell-acme/apps/untested`, 'dana')).status).toBe(404);
      expect((await open(`${D}/cell-acme/apps/untested`, 'dana')).status).toBe(200);
    });
  });

  describe('versioned files', () => {
    async function entry(who: keyof typeof cookies = 'mo') {
      const res = await open(`${P}/cell-acme/apps/hello`, who);
      return { ...injected(res.text), cookie: ticketCookie(res) };
    }

    it('of a company app were sent public, max-age=31536000, immutable: now private (no shared cache); an official app’s stay public, but a shared cache kept them a year after their version went offline: now it revalidates after 60 s', async () => {
      const { base, cookie } = await entry();
      expect((await rawGet(`${base}app.js`, { cookie })).headers['cache-control']).toBe('private, max-age=31536000, immutable');
      const official = await open(`${P}/apps/official`, 'mo');
      expect(official.status).toBe(200);
      const file = await rawGet(`${injected(official.text).base}index.html`, { cookie: ticketCookie(official) });
      expect([file.status, file.headers['cache-control']]).toEqual([200, 'public, max-age=31536000, s-maxage=60, immutable']);
    });

    it('another site that suppresses its Referer (<meta name=referrer content=no-referrer>) and includes the file at its plain address or with a wrong secret, the visitor’s ticket cookie going along, was admitted by the cookie: not now', async () => {
      const { base, cookie } = await entry();
      const [plain, secret] = /^(.*\/_v\/[0-9a-f]{16})-([0-9a-f]{16})\/$/.exec(base)!.slice(1) as [string, string];
      const wrong = `${plain}-${secret.replace(/^./, (c) => (c === '0' ? '1' : '0'))}/`;
      for (const at of [`${plain}/`, wrong, `${plain}-${'0'.repeat(16)}/`]) {
        const res = await rawGet(`${at}app.js`, { cookie });
        expect([at, res.status]).toEqual([at, 302]);
      }
      // Another visitor's page secret is not this cookie's either.
      const other = await entry('dana');
      expect((await rawGet(`${other.base}app.js`, { cookie })).status).toBe(302);
      // The page's own address with its own cookie, whatever Referer it sends.
      expect((await rawGet(`${base}app.js`, { cookie })).status).toBe(200);
      expect((await rawGet(`${base}app.js`, { cookie, referer: 'https://evil.example/page' })).status).toBe(200);
      // A session or a key still reads the plain address, as before.
      expect((await rawGet(`${plain}/app.js`, { cookie: cookies.mo })).status).toBe(200);
      expect((await rawGet(`${plain}/app.js`, { authorization: `Bearer ${dev}` })).status).toBe(200);
    });

    it('of a page opened earlier keep loading after the visitor opens the app again in another tab: the same ticket while it has more than half its life, else a cookie of another Path', async () => {
      const first = await open(`${P}/cell-acme/apps/hello`, 'mo');
      const second = await open(`${P}/cell-acme/apps/hello`, 'mo');
      const pathOf = (res: typeof first) => res.headers['set-cookie']!.find((c) => c.startsWith('svc_app_ticket='))!.split('; ')[1];
      expect(ticketCookie(second)).toBe(ticketCookie(first));
      // A change anywhere (here a notification alone) ends reuse: a new ticket, and two cookies of
      // different Path, so the second does not replace the first in the browser.
      await sql`SELECT pg_notify('svc_principals', '')`.execute(svc.database.db);
      const third = await open(`${P}/cell-acme/apps/hello`, 'mo');
      expect(ticketCookie(third)).not.toBe(ticketCookie(first));
      expect(pathOf(first)).not.toBe(pathOf(third));
      expect((await rawGet(`${injected(first.text).base}app.js`, { cookie: ticketCookie(first) })).status).toBe(200);
      expect((await rawGet(`${injected(third.text).base}app.js`, { cookie: ticketCookie(third) })).status).toBe(200);
    });

    it('are immutable, with a strong ETag, the exact type, and 304 on If-None-Match', async () => {
      const { base, cookie } = await entry();
      const res = await rawGet(`${base}app.js`, { cookie });
      expect(res.status).toBe(200);
      expect(res.text).toBe(SCRIPT);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.headers['cache-control']).toBe('private, max-age=31536000, immutable');
      expect(res.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(res.headers['content-security-policy']).toContain('sandbox allow-scripts');
      const again = await rawGet(`${base}app.js`, { cookie, 'if-none-match': res.headers.etag! });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      const png = await rawGet(`${base}img/dot.png`, { cookie, 'accept-encoding': 'br' });
      expect(png.headers['content-type']).toBe('image/png');
      expect(png.headers['content-encoding']).toBeUndefined();
    });

    it('are compressed with brotli or gzip when accepted, each with its own ETag', async () => {
      const { base, cookie } = await entry();
      const br = await rawGet(`${base}app.js`, { cookie, 'accept-encoding': 'gzip, br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.vary).toBe('Accept-Encoding');
      expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);
      expect(br.body.length).toBeLessThan(SCRIPT.length / 10);
      const gz = await rawGet(`${base}app.js`, { cookie, 'accept-encoding': 'gzip, br;q=0' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);
      expect(new Set([br.headers.etag, gz.headers.etag]).size).toBe(2);
      expect((await rawGet(`${base}app.js`, { cookie, 'accept-encoding': 'br', 'if-none-match': br.headers.etag! })).status).toBe(304);
    });

    it('need a credential: the ticket cookie of this app, a key or a session', async () => {
      const { base, cookie } = await entry();
      expect((await rawGet(`${base}app.js`)).status).toBe(302);
      expect((await rawGet(`${base}app.js`, { authorization: `Bearer ${dev}` })).status).toBe(200);
      expect((await rawGet(`${base}app.js`, { cookie: cookies.mo })).status).toBe(200);
      expect((await rawGet(`${base}app.js`, { cookie: cookies.gus })).status).toBe(403);
      // Another app's ticket admits nothing here.
      const other = await open(`${P}/cell-acme/apps/secret`, 'dana');
      const otherCookie = ticketCookie(other);
      expect((await rawGet(`${base}app.js`, { cookie: otherCookie })).status).toBe(302);
      expect((await rawGet(`${base}app.js`, { cookie })).status).toBe(200);
    });

    it('answer a plain 404 for a missing path, another app’s version, or a file outside _v', async () => {
      const { base, cookie } = await entry();
      const secretBase = injected((await open(`${P}/cell-acme/apps/secret`, 'dana')).text).base;
      const missing = [
        `${base}nope.js`,
        `${base}`,
        `${P}/cell-acme/apps/hello/app.js`,
        `${P}/cell-acme/apps/hello/_v/0123456789abcdef/app.js`,
        `${P}/cell-acme/apps/hello/_v/${secretBase.split('/_v/')[1]}index.html`,
        `${P}/cell-acme/apps/hello/web/assets/common.js`,
        `${P}/cell-acme/nonsense`,
      ];
      for (const url of missing) {
        const res = await rawGet(url, { cookie: `${cookie}; ${cookies.dana}` });
        expect(res.status, url).toBe(404);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.text).toContain('<h1>Not found</h1>');
      }
    });

    it('keep the previous version (the rollback target) reachable after a publish, on the same address', async () => {
      const first = await entry();
      await release(svc, dev, {
        namespace: 'cell-acme',
        slug: 'hello',
        version: '1.1.0',
        manifest: { summary: 'Says hello' },
        files: FILES.map((f) => (f.path === 'index.html' ? { ...f, content: `${f.content}<!-- 1.1 -->` } : f)),
      });
      const second = await entry();
      expect(digestOf(second.base)).not.toBe(digestOf(first.base));
      // The page opened on the previous version keeps loading its files.
      expect((await rawGet(`${first.base}app.js`, { cookie: first.cookie })).status).toBe(200);
      // An upload that never reached production is not served from the production tree.
      await release(svc, dev, { namespace: 'cell-acme', slug: 'hello', version: '1.2.0', files: [FILES[0]!] }, 'test');
      const testBase = injected((await open(`${D}/cell-acme/apps/hello`, 'dana')).text).base;
      const onProduction = testBase.replace(`${D}/`, `${P}/`);
      expect((await rawGet(`${onProduction}index.html`, { cookie: cookies.dana })).status).toBe(404);
      expect((await rawGet(`${testBase}index.html`, { cookie: cookies.dana })).status).toBe(200);
    });
  });

  describe('offline versions (the spec takes a superseded version offline)', () => {
    const app = { namespace: 'cell-acme', slug: 'releases' };
    const served = async (base: string, path = 'index.html', headers: Record<string, string> = {}) =>
      (await rawGet(`${base}${path}`, { cookie: cookies.dana, ...headers })).status;

    it('after publishing v3 the superseded v1 (not a rollback target) answers 404 on its _v/ files at once; v2, the rollback target, still answers 200; rolling back to v2 serves it and takes v3 offline', async () => {
      await release(svc, dev, { ...app, version: '1.0.0' });
      const v1 = injected((await open(`${P}/cell-acme/apps/releases`, 'dana')).text).base;
      const v1File = await rawGet(`${v1}app.js`, { cookie: cookies.dana });
      expect(v1File.status).toBe(200);
      await release(svc, dev, { ...app, version: '2.0.0' });
      const v2 = injected((await open(`${P}/cell-acme/apps/releases`, 'dana')).text).base;
      // v1 is what a rollback of v2 returns to: still online.
      expect([await served(v1), await served(v2)]).toEqual([200, 200]);

      await release(svc, dev, { ...app, version: '3.0.0' });
      const v3 = injected((await open(`${P}/cell-acme/apps/releases`, 'dana')).text).base;
      expect(new Set([v1, v2, v3]).size).toBe(3);
      for (const path of ['index.html', 'app.js']) {
        const offline = await rawGet(`${v1}${path}`, { cookie: cookies.dana });
        expect([path, offline.status, offline.headers['cache-control']]).toEqual([path, 404, 'no-store']);
        expect(offline.text).toContain('<h1>Not found</h1>');
      }
      // A revalidation of a copy loaded while it was online is refused too, not confirmed with a 304.
      expect(await served(v1, 'app.js', { 'if-none-match': v1File.headers.etag! })).toBe(404);
      // Whoever asks: a developer's key as well as the session.
      expect((await rawGet(`${v1}index.html`, { authorization: `Bearer ${dev}` })).status).toBe(404);
      // v2 shares app.js's stored bytes with v1: they stay, and v2 still serves them.
      expect([await served(v2), await served(v2, 'app.js'), await served(v3)]).toEqual([200, 200, 200]);

      const back = await svc.call('POST', '/api/v1/developer/apps/cell-acme/releases/channels/production', {
        body: { version: '2.0.0' },
        headers: { authorization: `Bearer ${dev}` },
      });
      expect([back.status, back.body.data.action]).toEqual([200, 'rollback']);
      expect(digestOf(injected((await open(`${P}/cell-acme/apps/releases`, 'dana')).text).base)).toBe(digestOf(v2));
      // v3, rolled back, goes offline; v2 is live again, and v1 is its rollback target again.
      expect([await served(v3), await served(v2), await served(v1)]).toEqual([404, 200, 200]);
      // Publishing v3 again brings it back, and v2 is its rollback target: v1 goes offline.
      const again = await svc.call('POST', '/api/v1/developer/apps/cell-acme/releases/channels/production', {
        body: { version: '3.0.0' },
        headers: { authorization: `Bearer ${dev}` },
      });
      expect([again.status, again.body.data.action]).toEqual([200, 'publish']);
      expect([await served(v3), await served(v2), await served(v1)]).toEqual([200, 200, 404]);
    });

    it('on the test tree a version answered 200 after test moved on: now only the version in test is served', async () => {
      const trial = { namespace: 'cell-acme', slug: 'trial' };
      await release(svc, dev, { ...trial, version: '1.0.0' }, 'test');
      const first = injected((await open(`${D}/cell-acme/apps/trial`, 'dana')).text).base;
      expect(await served(first)).toBe(200);
      await release(svc, dev, { ...trial, version: '1.1.0' }, 'test');
      const second = injected((await open(`${D}/cell-acme/apps/trial`, 'dana')).text).base;
      expect([await served(first), await served(second)]).toEqual([404, 200]);
      // Neither was published: the production tree serves neither.
      expect(await served(second.replace(`${D}/`, `${P}/`))).toBe(404);
    });
  });

  describe('generated pages', () => {
    it('test-channel about, about.md and SKILL.md of company apps (restricted too) were readable anonymously: now only by those who may open the test channel', async () => {
      for (const slug of ['hello', 'secret']) {
        for (const page of ['about', 'about.md', 'skills/none/SKILL.md']) {
          const url = `${D}/cell-acme/apps/${slug}/${page}`;
          const anonymous = await open(url);
          expect([url, anonymous.status, anonymous.headers.location]).toEqual([url, 302, expect.stringContaining('/signin')]);
          expect([url, (await open(url, 'mo')).status]).toEqual([url, 403]);
          expect([url, (await open(url, 'gus')).status]).toEqual([url, 403]);
        }
        const dana = await open(`${D}/cell-acme/apps/${slug}/about.md`, 'dana');
        expect([dana.status, dana.headers['cache-control']]).toEqual([200, 'private, no-cache']);
      }
      // Production pages stay public (spec).
      expect((await open(`${P}/cell-acme/apps/secret/about`)).status).toBe(200);
    });

    it('about, about.md and SKILL.md are readable without login', async () => {
      const about = await rawGet(`${P}/cell-acme/apps/hello/about`);
      expect(about.status).toBe(200);
      expect(about.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(about.text).toContain('<h1><bdi>App hello</bdi></h1>');
      expect(about.text).toContain('Says hello');
      const md = await rawGet(`${P}/cell-acme/apps/hello/about.md`);
      expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(md.text).toMatch(/^# App hello\n\nSays hello\n/);
      const skill = /\[([a-z0-9-]+)\]\((\S+SKILL\.md)\)/.exec(md.text);
      expect(skill).not.toBeNull();
      const text = await rawGet(skill![2]!);
      expect(text.status).toBe(200);
      expect(text.text).toContain(`name: ${skill![1]}`);
      expect((await rawGet(`${P}/cell-acme/apps/hello/skills/none/SKILL.md`)).status).toBe(404);
    });
  });

  describe('catalogs', () => {
    it('{production_base} sends to sign-in, then to the company catalog or the official one', async () => {
      expect((await open(P)).headers.location).toMatch(/\/signin\?next=%2Fp$/);
      expect((await open(P, 'mo')).headers.location).toBe(`${P}/cell-acme/apps`);
      expect((await open(`${P}/`, 'loner')).headers.location).toBe(`${P}/apps`);
    });

    it('the official catalog is open to anyone; a company catalog to its members', async () => {
      const official = await open(`${P}/apps`);
      expect(official.status).toBe(200);
      expect(official.text).toContain(`href="${P}/apps/official"`);
      const acme = await open(`${P}/cell-acme/apps`, 'mo');
      expect(acme.text).toContain(`href="${P}/cell-acme/apps/hello"`);
      expect(acme.text).not.toContain('untested');
      expect((await open(`${P}/cell-acme/apps`, 'gus')).status).toBe(403);
      expect((await open(`${P}/cell-acme/apps`)).status).toBe(302);
    });

    it('the developer catalogs: official test samples for anyone, the company’s for its developers', async () => {
      expect((await open(`${D}/apps`)).text).toContain(`href="${D}/apps/official"`);
      expect((await open(`${D}/cell-acme/apps`, 'dana')).text).toContain(`href="${D}/cell-acme/apps/untested"`);
      const member = await open(`${D}/cell-acme/apps`, 'mo');
      expect(member.status).toBe(302);
      expect(member.headers.location).toBe(`${P}/cell-acme/apps`);
    });
  });
});
