import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PageHosting } from '../../../schemas/bundle/csp-warnings.ts';
import { validateBundle } from '../../../schemas/bundle/validate-bundle.ts';
import { baseManifest, policyWarnings, textFile } from './fixtures.ts';

const HOSTING: PageHosting = { sdkBase: 'https://svc.acme.test/developer/sdk/v1/', pageOrigins: ['https://svc.acme.test'] };
const APP_HOSTS: PageHosting = { sdkBase: 'https://svc.acme.test/developer/sdk/v1/', pageOrigins: ['https://apps.acme.test'] };

function warningsOf(page: string, manifest: Record<string, unknown> = {}, hosting: PageHosting | null = HOSTING, js = '') {
  const files = [textFile('index.html', page), ...(js ? [textFile('app.js', js)] : [])];
  const result = validateBundle({ manifest: baseManifest({ sdk: ['semantic', 'ui'], ...manifest }), files }, hosting ?? undefined);
  expect(result.ok, JSON.stringify(result)).toBe(true);
  return result.warnings;
}
const codesOf = (...args: Parameters<typeof warningsOf>) => warningsOf(...args).map((w) => [w.path, w.code]);

describe('inline code the page’s policy blocks', () => {
  it('warns once per page for inline scripts, naming the count and the first line', () => {
    const warnings = warningsOf('<!doctype html>\n<p>x</p>\n<script>go()</script>\n<script type="module">import "./a.js"</script>');
    expect(warnings).toEqual([
      {
        path: 'files[0].content',
        code: 'inline_script_blocked',
        message: expect.stringMatching(/^index\.html has 2 inline <script> element\(s\), the first at line 3, .*Content-Security-Policy/),
      },
    ]);
  });

  it.each([
    ['a classic script', '<script>go()</script>'],
    ['a type in another case, with spaces', '<script type=" Text/JavaScript ">go()</script>'],
    ['an empty type', '<script type="">go()</script>'],
    ['a legacy JavaScript type', '<script type="application/x-javascript">go()</script>'],
    ['language="javascript"', '<script language="javascript">go()</script>'],
    ['a module', '<script type=module>go()</script>'],
    ['an import map', '<script type="importmap">{"imports": {}}</script>'],
    ['speculation rules', '<script type="speculationrules">{}</script>'],
    ['a nomodule module', '<script type=module nomodule>go()</script>'],
  ])('warns for %s', (_label, page) => {
    expect(codesOf(page)).toEqual([['files[0].content', 'inline_script_blocked']]);
  });

  it.each([
    ['a data block', '<script type="application/json">{"a": 1}</script>'],
    ['a type with parameters (a data block by the standard)', '<script type="text/javascript; charset=utf-8">go()</script>'],
    ['a template', '<script type="text/x-template"><p onclick="x()"></p></script>'],
    ['a non-JavaScript language', '<script language="vbscript">go()</script>'],
    ['an empty or blank script', '<script></script><script>\n  </script>'],
    ['a classic nomodule script (modern browsers skip it)', '<script nomodule>go()</script>'],
    ['a script with src', '<script src="app.js">ignored()</script>'],
    ['inline styles (style-src allows them)', '<style>p { color: red }</style><p style="color: blue">x</p>'],
    ['a comment', '<!-- <script>go()</script> <a onclick="x()"> -->'],
    ['an attribute that only starts like a handler', '<details open data-onclick="x()" one="1" onfoo="x()"></details>'],
    ['an empty handler', '<a onclick="">x</a>'],
    ['a link to a page', '<a href="javascript.html">x</a>'],
  ])('does not warn for %s', (_label, page) => {
    expect(codesOf(page)).toEqual([]);
  });

  it('warns for event handlers and javascript: URLs as one warning per page', () => {
    const warnings = warningsOf(
      '<body>\n<button onclick="save()">Save</button>\n<a href=" java\tscript:go()">go</a><form action="JAVASCRIPT:x()"></form><img src=x onerror=alert(1)>',
    );
    expect(warnings).toEqual([
      {
        path: 'files[0].content',
        code: 'inline_handler_blocked',
        message: expect.stringContaining('has 4 inline event handler(s) or javascript: URL(s), the first "onclick on <button>" at line 2'),
      },
    ]);
  });
});

describe('scripts from addresses the page’s policy does not admit', () => {
  it('warns for a script host that is not in cdn, and says to add a CDN the manifest may list', () => {
    const [warning, ...rest] = warningsOf(
      '<script src="https://esm.sh/react"></script><script src="https://unpkg.com/htmx.org"></script><script src="http://cdn.jsdelivr.net/x.js"></script>',
      { cdn: ['cdn.jsdelivr.net'] },
    );
    expect(rest).toEqual([]);
    expect(warning?.code).toBe('script_source_blocked');
    expect(warning?.message).toContain('"https://esm.sh/react" is on no host the policy admits');
    expect(warning?.message).toContain('"https://unpkg.com/htmx.org" needs "unpkg.com" in the manifest’s cdn');
    expect(warning?.message).toContain('"http://cdn.jsdelivr.net/x.js" must be loaded over https');
  });

  it('admits the cdn hosts the manifest lists, relative files and the SDK', () => {
    const page =
      '<script src="https://cdn.jsdelivr.net/npm/a"></script><script src="//unpkg.com/b"></script><script src="app.js"></script>' +
      '<script src="./lib/c.js"></script><script src="https://svc.acme.test/developer/sdk/v1/semantic.js"></script>';
    expect(codesOf(page, { cdn: ['cdn.jsdelivr.net', 'unpkg.com'] })).toEqual([]);
  });

  it('warns for an absolute path (outside the version’s files) and for imports in scripts', () => {
    const warnings = warningsOf(
      '<script src="app.js"></script><script src="/js/main.js"></script>',
      {},
      HOSTING,
      'import x from "https://esm.sh/x";\nexport { y } from "./y.js";\nimport("https://evil.test/z.js");\nfetch("https://api.test/data");',
    );
    expect(warnings.map((w) => [w.path, w.code])).toEqual([
      ['files[0].content', 'script_source_blocked'],
      ['files[1].content', 'script_source_blocked'],
    ]);
    expect(warnings[0]?.message).toContain('"/js/main.js" lies outside the version’s own files');
    expect(warnings[1]?.message).toContain('"https://esm.sh/x"');
    expect(warnings[1]?.message).toContain('"https://evil.test/z.js"');
    expect(warnings[1]?.message).not.toContain('api.test');
  });

  it('names at most three addresses per file', () => {
    const page = Array.from({ length: 50 }, (_, i) => `<script src="https://h${i}.test/x.js"></script>`).join('');
    const warnings = warningsOf(page);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/h2\.test.*; and 47 more$/);
  });
});

describe('the SDK from another host', () => {
  it('warns when a page loads the SDK from another service', () => {
    const warnings = warningsOf('<link rel="stylesheet" href="https://svc.example.com/developer/sdk/v1/ui.css">');
    expect(warnings).toEqual([
      {
        path: 'files[0].content',
        code: 'sdk_host_blocked',
        message: expect.stringContaining('write https://svc.acme.test/developer/sdk/v1/ui.css'),
      },
    ]);
  });

  it('warns for an import of the SDK from another host in a script', () => {
    expect(
      codesOf(
        '<script src="app.js"></script>',
        {},
        HOSTING,
        'const { createClient } = await import("http://localhost:8080/developer/sdk/v1/semantic.js");',
      ),
    ).toEqual([['files[1].content', 'sdk_host_blocked']]);
  });

  it('admits the SDK on this service, and a path when the pages share its origin', () => {
    const page =
      '<link rel="stylesheet" href="/developer/sdk/v1/ui.css"><script src="https://svc.acme.test/developer/sdk/v1/semantic.js"></script>';
    expect(codesOf(page)).toEqual([]);
  });

  it('warns for a path when the pages are on a host of their own', () => {
    const [warning] = warningsOf('<link rel="stylesheet" href="/developer/sdk/v1/ui.css">', {}, APP_HOSTS);
    expect(warning?.code).toBe('sdk_host_blocked');
    expect(warning?.message).toContain('("https://apps.acme.test/developer/sdk/v1/ui.css" from the app’s pages)');
  });

  it('checks no host without knowing the service (local validation)', () => {
    expect(codesOf('<script src="https://svc.example.com/developer/sdk/v1/semantic.js"></script>', {}, null)).toEqual([]);
  });
});

describe('hostile pages', () => {
  it('reads a javascript: URL behind C0 controls and with tabs and newlines, as a URL parser does', () => {
    expect(codesOf('<a href="\u0000\u001f javas\ncript:go()">x</a>')).toEqual([['files[0].content', 'inline_handler_blocked']]);
    expect(codesOf('<a href="\u00a0javascript:go()">x</a>')).toEqual([]);
  });

  it('never throws, whatever the page or script', () => {
    const parts = fc.constantFrom(
      '<script',
      '>',
      '</script>',
      ' src=',
      ' type=',
      ' onclick=',
      'javascript:',
      '"',
      "'",
      '\u0000',
      '//',
      'import(',
      ' from ',
      '/developer/sdk/v1/ui.css',
      'http://[',
      '%',
    );
    const text = fc.array(fc.oneof(parts, fc.string({ unit: 'binary' })), { maxLength: 40 }).map((p) => p.join(''));
    fc.assert(
      fc.property(text, (input) => {
        policyWarnings('index.html', input);
        policyWarnings('app.js', input);
      }),
      { numRuns: 500 },
    );
  });
});
