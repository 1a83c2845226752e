import { cssReferences } from './schemas/bundle/css.ts';
import { decodeContent } from './schemas/bundle/decode.ts';
import { parseFrontmatter } from './schemas/bundle/frontmatter.ts';
import { parseHtml } from './schemas/bundle/html.ts';
import { checkBundlePath } from './schemas/bundle/paths.ts';
import { sdkOfReference } from './schemas/bundle/sdk-usage.ts';
import { validateBundle } from './schemas/bundle/validate-bundle.ts';

const time = (label: string, fn: () => unknown) => {
  const t = performance.now();
  try {
    fn();
  } catch (e) {
    console.log(label, 'THREW', (e as Error).message);
  }
  console.log(label.padEnd(30), (performance.now() - t).toFixed(0), 'ms');
};
const N = 3 * 1024 * 1024 - 100;
const m = { manifestVersion: 1, slug: 'abc', version: '1.0.0', title: 'x' };
const js = (content: string) =>
  validateBundle({
    manifest: m,
    files: [
      { path: 'index.html', encoding: 'utf8', content: '<p>' },
      { path: 'a.js', encoding: 'utf8', content },
    ],
  });
time('repro 2000', () => js(`fetch(x);\nconst a = function/*${'x'.repeat(2000)}*/`));
time('repro 32K', () => js(`fetch(x);\nconst a = function/*${'x'.repeat(32 * 1024)}*/`));
time('repro 3MB', () => js(`fetch(x);\nconst a = function/*${'x'.repeat(N - 40)}*/`));
time('js tokens 3MB a;', () => js(`fetch(x);${'a;'.repeat(N / 2 - 10)}`));
time('js ((( 3MB', () => js(`fetch(x);${'('.repeat(N - 20)}`));
time('js nested fn 3MB', () => js(`fetch(x);${'function a(){setTimeout('.repeat(N / 24 - 1)}`));
time('js strings 3MB', () => js(`${'"",'.repeat(N / 3 - 1)}`));
time('css url( ws', () => cssReferences(`url(${' '.repeat(N)}x`));
time('css url(url(', () => cssReferences('url('.repeat(N / 4)));
time('html script tags', () => parseHtml('<script></script>'.repeat(N / 17)));
time('html attrs', () => parseHtml(`<a ${'a = '.repeat(N / 4)}>`));
time('frontmatter 2028', () => parseFrontmatter(`---\na:${' '.repeat(N)}\u2028\n---\nbody`));
time('sdk host', () => sdkOfReference(`a://${'b'.repeat(N)}`));
time('paths', () => checkBundlePath(`${'a/'.repeat(N / 2)}`));
time('base64 3.5MB', () => decodeContent('base64', 'A'.repeat((3.5 * 1024 * 1024 * 4) / 3)));
