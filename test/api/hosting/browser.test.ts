import http from 'node:http';
import type net from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appTemplate } from '../../../cli/commands/init/template.ts';
import { launchBrowser } from '../../support/browser.ts';
import { release } from '../../support/hosting.ts';
import { bearer, PASSWORD, passwordKey, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { signedIn as signedInAs } from '../../support/web-sign-in.ts';

// Published apps in real Chromium: the script runs in an opaque origin, the CSP keeps out hosts
// the manifest does not list, a publish and a rollback show on the same address with no purge,
// and the sign-in round trip comes back to the app.

let svc: TestService;
let browser: Browser;
let dev: string;
/** A second loopback origin: a host outside the allowlist, counting what it is asked for. */
let outsider: http.Server;
let outsiderUrl: string;
const outsiderHits: string[] = [];

function files(version: string) {
  return [
    {
      path: 'index.html',
      encoding: 'utf8' as const,
      content:
        '<!doctype html><html><head><title>loading</title></head><body><p id="out"></p>' +
        `<script src="${outsiderUrl}/evil.js"></script><script src="app.js"></script></body></html>`,
    },
    {
      path: 'app.js',
      encoding: 'utf8' as const,
      content:
        "const ticket = document.querySelector('meta[name=svc-app-ticket]')?.content ?? '';\n" +
        `document.title = 'ran ${version}';\n` +
        "document.getElementById('out').textContent = JSON.stringify({ origin: self.origin, ticket: ticket.startsWith('svc-at-'), evil: self.evil === true });\n",
    },
  ];
}

beforeAll(async () => {
  outsider = http.createServer((req, res) => {
    // Another website, which includes a file of the app (`?src=`) in a page of its own.
    const src = new URL(req.url!, 'http://outsider').searchParams.get('src');
    if (src) {
      res.setHeader('content-type', 'text/html');
      res.end(
        // No Referer, as any site can choose.
        `<!doctype html><meta name="referrer" content="no-referrer"><title>outsider</title><script src="${src}"></script>` +
          "<script>setTimeout(() => { document.title = 'included: ' + (document.title.startsWith('ran ') ? 'yes' : 'no'); }, 500)</script>",
      );
      return;
    }
    outsiderHits.push(req.url!);
    res.setHeader('content-type', 'text/javascript');
    res.end('self.evil = true;');
  });
  await new Promise<void>((resolve) => outsider.listen(0, '127.0.0.1', resolve));
  outsiderUrl = `http://127.0.0.1:${(outsider.address() as net.AddressInfo).port}`;
  svc = await startTestService();
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  await release(svc, dev, { namespace: 'cell-acme', slug: 'hello', version: '1.0.0', files: files('1.0.0') });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
  outsider?.close();
});

const withSignedIn = <T>(login: string, fn: (page: Page) => Promise<T>) => signedInAs(browser, svc.url!, login, fn);

const appAddress = () => `${svc.addresses.productionBase}/cell-acme/apps/hello`;

async function shown(page: Page): Promise<{ title: string; out: { origin: string; ticket: boolean; evil: boolean } }> {
  await page.waitForFunction("document.title.startsWith('ran ')");
  return { title: await page.title(), out: JSON.parse((await page.locator('#out').textContent())!) };
}

describe('a published app in the browser', () => {
  it('runs its script in an opaque origin with its ticket, and the CSP blocks a host outside the allowlist', async () => {
    await withSignedIn('mo', async (page) => {
      const violations: string[] = [];
      page.on('console', (m) => {
        if (m.text().includes('Content Security Policy')) violations.push(m.text());
      });
      await page.goto(appAddress());
      expect(await shown(page)).toEqual({ title: 'ran 1.0.0', out: { origin: 'null', ticket: true, evil: false } });
      expect(outsiderHits).toEqual([]);
      expect(violations.some((v) => v.includes(`${outsiderUrl}/evil.js`))).toBe(true);
    });
  });

  it('another website including a signed-in visitor’s private app file (SameSite=None cookie, CORP cross-origin) without a Referer (<meta name=referrer content=no-referrer>) got it: now it gets nothing at the address it can name; the app page still loads it', async () => {
    await withSignedIn('mo', async (page) => {
      await page.goto(appAddress());
      expect((await shown(page)).out.ticket).toBe(true);
      const base = (await page.locator('base').getAttribute('href'))!;
      const script = new URL((await page.locator('script[src$="app.js"]').getAttribute('src'))!, base).href;
      // The page's files live under its secret; another site knows the app and its version, not the secret.
      expect(script).toMatch(/\/_v\/[0-9a-f]{16}-[0-9a-f]{16}\/app\.js$/);
      const guessable = script.replace(/(\/_v\/[0-9a-f]{16})-[0-9a-f]{16}\//, '$1/');
      // Another site (another host) includes the app's script with the visitor's browser: the ticket cookie goes along
      // wherever its Path matches (a query of its own, so the request reaches the service rather than the browser's cache).
      for (const src of [guessable, script.replace(/-[0-9a-f]{16}\//, `-${'0'.repeat(16)}/`)]) {
        const outsiderPage = `${outsiderUrl.replace('127.0.0.1', 'localhost')}/?src=${encodeURIComponent(`${src}?from=outsider`)}`;
        await page.goto(outsiderPage);
        await page.waitForFunction("document.title.startsWith('included: ')");
        expect([src, await page.title()]).toEqual([src, 'included: no']);
      }
      await page.goto(appAddress());
      expect((await shown(page)).title).toBe('ran 1.0.0');
    });
  });

  it('a page opened earlier keeps loading its files after the visitor opens the app again in another tab', async () => {
    await withSignedIn('mo', async (first) => {
      await first.goto(appAddress());
      expect((await shown(first)).title).toBe('ran 1.0.0');
      const second = await first.context().newPage();
      await second.goto(appAddress());
      expect((await shown(second)).title).toBe('ran 1.0.0');
      // The first page loads a file of its version again (a query of its own: from the service, not the cache).
      const loaded = (page: Page) =>
        page.evaluate<string>(`new Promise((resolve) => {
          const s = document.createElement('script');
          s.src = 'app.js?again=' + Math.random();
          s.onload = () => resolve('loaded');
          s.onerror = () => resolve('refused');
          document.body.append(s);
        })`);
      expect([await loaded(first), await loaded(second)]).toEqual(['loaded', 'loaded']);
    });
  });

  it('shows a publish and a rollback on the same address, with no cache purge', async () => {
    await withSignedIn('mo', async (page) => {
      await page.goto(appAddress());
      expect((await shown(page)).title).toBe('ran 1.0.0');
      await release(svc, dev, { namespace: 'cell-acme', slug: 'hello', version: '1.1.0', files: files('1.1.0') });
      await page.goto(appAddress());
      expect((await shown(page)).title).toBe('ran 1.1.0');
      const rollback = await svc.call('POST', '/api/v1/developer/apps/cell-acme/hello/channels/production', {
        body: { version: '1.0.0' },
        headers: bearer(dev),
      });
      expect(rollback.status).toBe(200);
      await page.goto(appAddress());
      expect((await shown(page)).title).toBe('ran 1.0.0');
    });
  });

  it('blocks what the deploy warned about: inline scripts, event handlers, a host not in cdn, the SDK from another host', async () => {
    const page =
      '<!doctype html><html><head><title>loading</title>' +
      `<link rel="stylesheet" href="${outsiderUrl}/developer/sdk/v1/ui.css"></head><body>` +
      '<script>self.inlineRan = true;</script>' +
      '<img src="missing.png" onerror="self.handlerRan = true">' +
      `<script src="${outsiderUrl}/not-in-cdn.js"></script>` +
      '<script src="report.js"></script></body></html>';
    // Reports once the image has failed (its handler would have run by then).
    const report =
      "addEventListener('load', () => setTimeout(() => { document.title = 'ran ' + JSON.stringify(" +
      '{ inline: self.inlineRan === true, handler: self.handlerRan === true, evil: self.evil === true }); }, 200));';
    const base = '/api/v1/developer/apps/cell-acme/warned';
    const files = [
      { path: 'index.html', encoding: 'utf8' as const, content: page },
      { path: 'report.js', encoding: 'utf8' as const, content: report },
    ];
    const up = await svc.call('POST', `${base}/versions`, {
      body: { manifest: { manifestVersion: 1, slug: 'warned', version: '1.0.0', title: 'Warned', sdk: ['ui'] }, files },
      headers: bearer(dev),
    });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    const warnings = (up.body as { data: { warnings: { code: string }[] } }).data.warnings;
    expect(warnings.map((w) => w.code)).toEqual([
      'inline_script_blocked',
      'inline_handler_blocked',
      'script_source_blocked',
      'sdk_host_blocked',
    ]);
    for (const channel of ['test', 'production']) {
      const moved = await svc.call('POST', `${base}/channels/${channel}`, { body: { version: '1.0.0' }, headers: bearer(dev) });
      expect(moved.status).toBe(200);
    }
    await withSignedIn('mo', async (tab) => {
      const violations: string[] = [];
      tab.on('console', (m) => {
        if (m.text().includes('Content Security Policy')) violations.push(m.text());
      });
      await tab.goto(`${svc.addresses.productionBase}/cell-acme/apps/warned`);
      // Polled from outside: waitForFunction would evaluate a string in the page, which its CSP forbids.
      await expect.poll(() => tab.title(), { timeout: 10_000 }).toMatch(/^ran /);
      // The page's own file ran; nothing the warnings named did.
      expect(await tab.title()).toBe(`ran ${JSON.stringify({ inline: false, handler: false, evil: false })}`);
      expect(outsiderHits.filter((hit) => hit.includes('not-in-cdn') || hit.includes('/developer/sdk/'))).toEqual([]);
      expect(violations.filter((v) => v.includes('inline')).length).toBeGreaterThanOrEqual(2);
      expect(violations.some((v) => v.includes(`${outsiderUrl}/developer/sdk/v1/ui.css`))).toBe(true);
    });
  });

  it('runs the svc init template: ui.css and the SDK from this service, auth.me() names the visitor, no warning', async () => {
    const template = appTemplate(svc.url!, 'Hello');
    const files = Object.entries(template).map(([path, content]) => ({ path, encoding: 'utf8' as const, content }));
    const base = '/api/v1/developer/apps/cell-acme/templated';
    const up = await svc.call('POST', `${base}/versions`, {
      body: { manifest: { manifestVersion: 1, slug: 'templated', version: '0.1.0', title: 'Hello', sdk: ['semantic', 'ui'] }, files },
      headers: bearer(dev),
    });
    expect([up.status, up.body.data.warnings]).toEqual([201, []]);
    for (const channel of ['test', 'production']) {
      const moved = await svc.call('POST', `${base}/channels/${channel}`, { body: { version: '0.1.0' }, headers: bearer(dev) });
      expect(moved.status).toBe(200);
    }
    await withSignedIn('mo', async (tab) => {
      await tab.goto(`${svc.addresses.productionBase}/cell-acme/apps/templated`);
      await expect
        .poll(() => tab.locator('#me').textContent(), { timeout: 10_000 })
        .toMatch(/^Hello mo: \w+ in templated, version 0\.1\.0 \(production\)\.$/);
      // ui.css applied: the card's radius is the platform's.
      type Styled = { getComputedStyle(element: unknown): { borderRadius: string } };
      expect(await tab.locator('#me').evaluate((el) => (globalThis as unknown as Styled).getComputedStyle(el).borderRadius)).toBe('8px');
    });
  });

  it('lets the page use the camera only when its manifest asks (Permissions-Policy)', async () => {
    const probe = [
      { path: 'index.html', encoding: 'utf8' as const, content: '<!doctype html><body><script src="probe.js"></script></body>' },
      {
        path: 'probe.js',
        encoding: 'utf8' as const,
        content:
          "document.title = 'ran ' + JSON.stringify([document.featurePolicy.allowsFeature('camera'), document.featurePolicy.allowsFeature('microphone')]);",
      },
    ];
    await release(svc, dev, {
      namespace: 'cell-acme',
      slug: 'camera-on',
      version: '1.0.0',
      files: probe,
      manifest: { permissions: { camera: true } },
    });
    await release(svc, dev, { namespace: 'cell-acme', slug: 'camera-off', version: '1.0.0', files: probe });
    await withSignedIn('mo', async (page) => {
      await page.goto(`${svc.addresses.productionBase}/cell-acme/apps/camera-on`);
      await page.waitForFunction("document.title.startsWith('ran ')");
      expect(await page.title()).toBe('ran [true,false]');
      await page.goto(`${svc.addresses.productionBase}/cell-acme/apps/camera-off`);
      await page.waitForFunction("document.title.startsWith('ran ')");
      expect(await page.title()).toBe('ran [false,false]');
    });
  });

  it('sends a member from the test address to production', async () => {
    await withSignedIn('mo', async (page) => {
      await page.goto(`${svc.addresses.developerBase}/cell-acme/apps/hello`);
      expect(page.url()).toBe(appAddress());
      expect((await shown(page)).title).toMatch(/^ran /);
    });
  });

  it('sends a visitor without a session to sign in and back to the app', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(appAddress());
      expect(new URL(page.url()).pathname).toBe('/signin');
      await page.getByLabel('Username or email').fill('mo');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(appAddress());
      expect((await shown(page)).out.origin).toBe('null');
    } finally {
      await context.close();
    }
  });
});
