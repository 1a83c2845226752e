import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWithAppHosts } from '../../support/app-hosts.ts';
import { bundle } from '../../support/bundles.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import type { TestService } from '../../support/service.ts';

// The warnings of what an app page's Content-Security-Policy blocks, in real uploads over
// loopback, on a service whose pages live on hosts of their own (so the SDK's address matters).

let svc: TestService;
let dev: string;

beforeAll(async () => {
  svc = await startWithAppHosts();
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
}, 120_000);
afterAll(() => svc?.close());
beforeEach(() => resetRateLimits(svc));

const page = (content: string) => [{ path: 'index.html', encoding: 'utf8' as const, content }];
const upload = (slug: string, body: unknown, headers: Record<string, string> = {}) =>
  svc.call('POST', `/api/v1/developer/apps/cell-acme/${slug}/versions`, { body, headers: { ...bearer(dev), ...headers } });
const codes = (warnings: { code: string }[]) => warnings.map((w) => w.code);

describe('upload warnings for the page’s Content-Security-Policy', () => {
  it('warns for an SDK path that resolves to the pages’ host, not for the SDK on this service', async () => {
    const onPages = await upload(
      'sdk-path',
      bundle('sdk-path', '1.0.0', { manifest: { sdk: ['ui'] }, files: page('<link rel="stylesheet" href="/developer/sdk/v1/ui.css">') }),
    );
    expect(onPages.status).toBe(201);
    expect(onPages.body.data.warnings).toEqual([
      expect.objectContaining({
        path: 'files[0].content',
        code: 'sdk_host_blocked',
        message: expect.stringContaining(`write ${svc.url}/developer/sdk/v1/ui.css`),
      }),
    ]);
    const onService = await upload(
      'sdk-here',
      bundle('sdk-here', '1.0.0', {
        manifest: { sdk: ['ui'] },
        files: page(`<link rel="stylesheet" href="${svc.url}/developer/sdk/v1/ui.css">`),
      }),
    );
    expect([onService.status, onService.body.data.warnings]).toEqual([201, []]);
  });

  it('answers the warnings in a dry run, with a refused bundle, and again for an identical re-upload', async () => {
    const inline = page('<script>go()</script><button onclick="save()">Save</button><script src="https://esm.sh/x"></script>');
    const expected = ['inline_script_blocked', 'inline_handler_blocked', 'script_source_blocked'];
    const dry = await upload('inline', bundle('inline', '1.0.0', { files: inline }), { 'x-svc-dry-run': 'true' });
    expect([dry.status, codes(dry.body.data.plan.warnings)]).toEqual([202, expected]);
    const refused = await upload('inline', bundle('inline', '1.0.0', { manifest: { entry: 'missing.html' }, files: inline }));
    expect([refused.status, codes(refused.body.error.details.warnings)]).toEqual([422, expected]);
    const first = await upload('inline', bundle('inline', '1.0.0', { files: inline }));
    expect([first.status, codes(first.body.data.warnings)]).toEqual([201, expected]);
    const again = await upload('inline', bundle('inline', '1.0.0', { files: inline }));
    expect([again.status, codes(again.body.data.warnings)]).toEqual([200, expected]);
  });

  it('never answers 5xx to hostile pages (sent as base64, so U+0000 and any markup reach the analysis)', async () => {
    const hostile = fc
      .stringMatching(/^[\s\S]*$/)
      .chain((noise) =>
        fc
          .array(
            fc.constantFrom(
              '<script',
              '</script>',
              ' src=',
              ' type=',
              ' onclick=',
              'javascript:',
              '\u0000',
              '"',
              "'",
              '>',
              '//unpkg.com/',
              '/developer/sdk/v1/semantic.js',
              'import(',
              ' from ',
              '\uFEFF',
              '\t',
              noise,
            ),
            { maxLength: 60 },
          )
          .map((parts) => parts.join('')),
      );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(hostile, async (html) => {
        n += 1;
        const res = await upload(
          `hostile-${n}`,
          bundle(`hostile-${n}`, '1.0.0', {
            files: [{ path: 'index.html', encoding: 'base64', content: Buffer.from(html).toString('base64') }],
          }),
        );
        expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  });
});
