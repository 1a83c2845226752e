// Every analyser that reads uploaded content, on adversarial input of the largest size it can
// get, must finish in time linear in that size. The bound, on the CPU time of this test's process,
// is generous (a linear pass over these inputs takes well under a second); a backtracking pattern
// takes minutes to hours here.
import { describe, expect, it } from 'vitest';
import { cssReferences } from '../../../schemas/bundle/css.ts';
import { decodeContent } from '../../../schemas/bundle/decode.ts';
import { parseFrontmatter } from '../../../schemas/bundle/frontmatter.ts';
import { parseHtml } from '../../../schemas/bundle/html.ts';
import { scanJs } from '../../../schemas/bundle/js-lexer.ts';
import { checkBundlePath } from '../../../schemas/bundle/paths.ts';
import { PollingDetector } from '../../../schemas/bundle/polling.ts';
import { sdkOfReference } from '../../../schemas/bundle/sdk-usage.ts';
import { checkSkills, MAX_SKILL_FILE_BYTES } from '../../../schemas/bundle/skills.ts';
import { MAX_BUNDLE_BYTES } from '../../../schemas/bundle/validate-bundle.ts';
import { policyWarnings } from './fixtures.ts';

const BOUND_MS = 5000;
// A path or an encoded content is bounded only by the request body (SVC_MAX_BODY_BYTES, 8 MiB).
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** `unit` repeated between `prefix` and `suffix` to `size` characters. */
function fill(size: number, unit: string, prefix = '', suffix = ''): string {
  return prefix + unit.repeat(Math.floor((size - prefix.length - suffix.length) / unit.length)) + suffix;
}

/** CPU time, not wall time: a busy machine (other test files, other processes) then does not count. */
function expectLinear(run: () => unknown): void {
  const started = process.cpuUsage();
  run();
  const used = process.cpuUsage(started);
  expect((used.user + used.system) / 1000).toBeLessThan(BOUND_MS);
}

function detectPolling(source: string): boolean {
  const detector = new PollingDetector();
  scanJs(source, (token) => detector.push(token));
  return detector.polls;
}

const SCRIPTS: [string, string][] = [
  // The reported case: js-lexer blanks the comment, which used to leave `function` + spaces + `(`.
  ['a long comment after function', fill(MAX_BUNDLE_BYTES, 'x', 'fetch(x);\nconst a = function/*', '*/')],
  ['a long space run after function', fill(MAX_BUNDLE_BYTES, ' ', 'fetch(x);\nconst a = async function', '(')],
  ['nested parentheses', fill(MAX_BUNDLE_BYTES, '(', 'fetch(x);')],
  ['nested named calls', fill(MAX_BUNDLE_BYTES, 'a(', 'fetch(x);')],
  ['nested functions re-arming', fill(MAX_BUNDLE_BYTES, 'function a(){setTimeout(', 'fetch(x);')],
  ['open template expressions', fill(MAX_BUNDLE_BYTES, '`${')],
  ['unterminated strings', fill(MAX_BUNDLE_BYTES, "'\\")],
  ['slashes', fill(MAX_BUNDLE_BYTES, '/')],
];

describe(`analysis cost (adversarial input of the largest size, under ${BOUND_MS} ms)`, () => {
  it.each(SCRIPTS)('lexer and polling detection: %s', (_label, source) => {
    expectLinear(() => detectPolling(source));
  });

  it.each([
    ['many script elements', fill(MAX_BUNDLE_BYTES, '<script></script>')],
    ['many unclosed script elements', fill(MAX_BUNDLE_BYTES, '<script>')],
    ['many attributes with spaces around =', `<a ${fill(MAX_BUNDLE_BYTES, 'a  =  ')}>`],
    ['many stray quotes and equals', `<a ${fill(MAX_BUNDLE_BYTES, `a=b"'=`)}>`],
    ['a long space run before a missing =', `<a a${fill(MAX_BUNDLE_BYTES, ' ')}`],
    ['many tags without >', fill(MAX_BUNDLE_BYTES, '<a b ')],
  ])('html: %s', (_label, source) => {
    expectLinear(() => parseHtml(source));
  });

  it.each([
    ['many event handlers', fill(MAX_BUNDLE_BYTES, '<a onclick=x>')],
    ['many inline scripts', fill(MAX_BUNDLE_BYTES, '<script>x</script>', '\n'.repeat(100_000))],
    ['the first inline script after many lines', fill(MAX_BUNDLE_BYTES, '\n', '', '<script>x</script>')],
    ['a javascript: URL split by tabs', fill(MAX_BUNDLE_BYTES, '\t', '<a href="j', 'avascript:x">')],
    ['a type of spaces', fill(MAX_BUNDLE_BYTES, ' ', '<script type="', 'x">go()</script>')],
    ['many distinct script hosts', Array.from({ length: 120_000 }, (_, i) => `<script src=https://h${i}.test/></script>`).join('')],
    ['many SDK references on another host', fill(MAX_BUNDLE_BYTES, '<link href=//x/developer/sdk/v1/ui.css>')],
    ['many SDK paths', fill(MAX_BUNDLE_BYTES, '<link href=/developer/sdk/v1/ui.css>')],
  ])('page policy warnings: %s', (_label, source) => {
    expectLinear(() => policyWarnings('index.html', source));
  });

  it.each([
    ['many dynamic imports', fill(MAX_BUNDLE_BYTES, 'import("https://x.test/a.js");')],
    ['many static imports', fill(MAX_BUNDLE_BYTES, 'import a from "/a.js";\n')],
  ])('script imports: %s', (_label, source) => {
    expectLinear(() => policyWarnings('app.js', source));
  });

  it.each([
    ['a long space run inside url(', fill(MAX_BUNDLE_BYTES, ' ', 'url(', 'x')],
    ['a long space run after @import', fill(MAX_BUNDLE_BYTES, ' ', '@import', 'x')],
    ['many url( without )', fill(MAX_BUNDLE_BYTES, 'url(')],
    ['many unclosed quoted url(', fill(MAX_BUNDLE_BYTES, 'url("')],
    ['many comment starts', fill(MAX_BUNDLE_BYTES, '/*')],
  ])('css: %s', (_label, source) => {
    expectLinear(() => cssReferences(source));
  });

  it.each([
    ['a long space run before a line separator', fill(MAX_BUNDLE_BYTES, ' ', '---\nname:', '\u2028\n---\nbody')],
    ['a long space run before a carriage return', fill(MAX_BUNDLE_BYTES, ' ', '---\nname:', '\rx\n---\nbody')],
    ['many key lines', fill(MAX_BUNDLE_BYTES, 'a: b\n', '---\n', '---\nbody')],
  ])('frontmatter: %s', (_label, source) => {
    expectLinear(() => parseFrontmatter(source));
  });

  it('skills: an oversized SKILL.md is refused for its size without being parsed', () => {
    const text = fill(MAX_BUNDLE_BYTES, ' ', '---\nname:', '\u2028\n---\nbody');
    let result: ReturnType<typeof checkSkills> | undefined;
    expectLinear(() => {
      result = checkSkills([{ index: 0, path: 'skills/a/SKILL.md', bytes: Buffer.from(text), text }]);
    });
    expect(result?.problems.map((p) => p.code)).toEqual(['skill_file_too_large']);
  });

  it('skills: a SKILL.md of the largest allowed size is parsed', () => {
    // U+2028 takes three bytes in UTF-8.
    const text = fill(MAX_SKILL_FILE_BYTES - 2, ' ', '---\nname:', '\u2028\n---\nbody');
    let result: ReturnType<typeof checkSkills> | undefined;
    expectLinear(() => {
      result = checkSkills([{ index: 0, path: 'skills/a/SKILL.md', bytes: Buffer.from(text), text }]);
    });
    expect(Buffer.byteLength(text)).toBe(MAX_SKILL_FILE_BYTES);
    expect(result?.problems.map((p) => p.code)).toEqual(['skill_frontmatter']);
  });

  it.each([
    ['a long scheme', fill(MAX_BUNDLE_BYTES, 'a')],
    ['a long host', fill(MAX_BUNDLE_BYTES, 'b', 'a://')],
    ['a long file name followed by /', fill(MAX_BUNDLE_BYTES, 'b', '/developer/sdk/v1/', '/')],
    ['many colons and slashes', fill(MAX_BUNDLE_BYTES, 'a:/')],
  ])('sdk references: %s', (_label, reference) => {
    expectLinear(() => sdkOfReference(reference));
  });

  it.each([
    ['valid base64', fill(MAX_BODY_BYTES, 'AAAA')],
    ['a bad character at the end', fill(MAX_BODY_BYTES, 'AAAA', '', 'AA*=')],
  ])('base64: %s of the largest body', (_label, content) => {
    expectLinear(() => decodeContent('base64', content));
  });

  it.each([
    ['many segments', fill(MAX_BODY_BYTES, 'a/')],
    ['many dots', fill(MAX_BODY_BYTES, '.')],
    ['many fullwidth dots', fill(MAX_BODY_BYTES, '\uff0e')],
    ['many spaces', fill(MAX_BODY_BYTES, ' ')],
  ])('paths: %s', (_label, path) => {
    expectLinear(() => checkBundlePath(path));
  });
});
