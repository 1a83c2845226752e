import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_REFERENCE_PATH, SWAGGER_UI_ASSETS } from '../../../api/web/api-reference.ts';
import { screenshot, seriousViolations } from '../../support/axe.ts';
import { launchBrowser } from '../../support/browser.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { withPage } from './page.ts';

// The API reference page (issue 35): swagger-ui, served by the service itself, renders the
// service's own OpenAPI document under the page's CSP, with nothing fetched from another host.

let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  svc = await startTestService();
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** The operations the page lists, as "METHOD path". */
const OPERATION = '.opblock-summary';

describe('the API reference page', () => {
  // A page of every operation in Chromium, then axe over it, on a shared machine: a budget of its own.
  it('renders every operation of the served document, linked from the landing page, with no CSP violation and no other host', {
    timeout: 180_000,
  }, async () => {
    const document = (await svc.call('GET', '/api/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    await withPage(browser, svc.url!, async (page) => {
      await page.goto(`${svc.url}/`);
      await page.getByRole('link', { name: 'API reference' }).click();
      await page.waitForURL(`${svc.url}${API_REFERENCE_PATH}`);
      // Every operation is on the page, as a reader finds it: tags start closed (a table of
      // contents); opening one lists its operations. One at a time, as swagger-ui renders only the
      // rows near the viewport once 150 are open. An operation with several tags is under each.
      await page.locator('.opblock-tag').first().waitFor();
      const tags = await page.locator('.opblock-tag').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-tag')!));
      expect(await page.locator(OPERATION).count()).toBe(0);
      const listed = new Set<string>();
      for (const tag of tags) {
        const header = page.locator(`.opblock-tag[data-tag="${tag}"] > a`);
        await header.click();
        await page.locator(`[id^="operations-${tag}-"] ${OPERATION}`).first().waitFor();
        for (const row of await page.locator(OPERATION).evaluateAll((rows) =>
          rows.map(
            (row) =>
              // A deprecated operation's path has a class of its own (struck through).
              `${row.querySelector('.opblock-summary-method')?.textContent} ${row.querySelector('.opblock-summary-path, .opblock-summary-path__deprecated')?.getAttribute('data-path')}`,
          ),
        ))
          listed.add(row);
        await header.click();
        await page.locator(OPERATION).first().waitFor({ state: 'detached' });
      }
      expect(listed).toEqual(new Set(operations));
      expect(await page.locator('.info .title').textContent()).toContain('Developer API');
      // An operation's link opens its tag and the operation, with its schema.
      await page.goto('about:blank');
      await page.goto(`${svc.url}${API_REFERENCE_PATH}#/keys/getMe`);
      await page.locator('#operations-keys-getMe.is-open .responses-wrapper').waitFor();
      await screenshot(page, 'api-reference');
      const violations = await seriousViolations(page, OPERATION);
      console.log(
        `axe on ${API_REFERENCE_PATH}:`,
        violations.map((v) => `${v.slice(0, 200)} [${v.split(', ').length} nodes]`),
      );
      // swagger-ui's own markup, which this page cannot change: each operation's summary is a
      // <button> that holds the operation's deep link and copy button (nested-interactive). Every
      // other serious violation fails here, on every element.
      const ours = violations.filter(
        (v) =>
          !/^nested-interactive \(serious\): .* at (#operations-[\w-]+ > \.opblock-summary > \.opblock-summary-control(, )?)+$/.test(v),
      );
      expect(ours).toEqual([]);
    });
  });

  it('serves swagger-ui’s two files with their types and a year of caching, and nothing else of the package', async () => {
    const css = await fetch(`${svc.url}${SWAGGER_UI_ASSETS}swagger-ui.css`);
    expect([css.status, css.headers.get('content-type'), css.headers.get('cache-control')]).toEqual([
      200,
      'text/css; charset=utf-8',
      'public, max-age=31536000, immutable',
    ]);
    const js = await fetch(`${svc.url}${SWAGGER_UI_ASSETS}swagger-ui-bundle.js`);
    expect([js.status, js.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect((await js.text()).length).toBeGreaterThan(100_000);
    for (const other of ['package.json', 'index.html', 'swagger-ui-bundle.js.map', '..%2Fpackage.json', 'constructor']) {
      expect((await fetch(`${svc.url}${SWAGGER_UI_ASSETS}${other}`)).status, other).toBe(404);
    }
    expect((await fetch(`${svc.url}/web/assets/swagger-ui/0.0.1/swagger-ui.css`)).status).toBe(404);
  });
});
