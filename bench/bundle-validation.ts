// Bundle validation cost, measured against a baseline taken in the same run: SHA-256 over the
// same bytes (what storing them costs at least). Usage: npx node bench/bundle-validation.ts [rounds=5]
import { createHash } from 'node:crypto';
import { validateBundleOffThread } from '../domain/apps/index.ts';
import { type BundleFileInput, type BundleInput, MAX_BUNDLE_BYTES, validateBundle } from '../schemas/bundle/index.ts';
import { record } from './support/report.ts';
import { median, time } from './support/timing.ts';

const rounds = Number(process.argv[2] ?? 5);

const module = (i: number) =>
  [
    `// Module ${i}: loads and renders one list.`,
    `export async function load${i}(filter = {}) {`,
    `  const response = await fetch(\`/api/items/${i}?q=\${encodeURIComponent(filter.q ?? '')}\`);`,
    `  if (!response.ok) throw new Error('load ${i} failed: ' + response.status);`,
    '  return (await response.json()).items.filter((item) => /^[a-z]+$/i.test(item.name));',
    '}',
    `export const render${i} = (items) => items.map((item) => \`<li class="item">\${item.name}</li>\`).join('');`,
    '',
  ].join('\n');

/** Files of about `size` bytes: a page with an inline script and style, a stylesheet, 20 scripts. */
function realistic(size: number): BundleFileInput[] {
  const scriptSize = Math.floor((size - 20_000) / 20);
  const body = (i: number) => module(i).repeat(Math.floor(scriptSize / module(i).length));
  return [
    {
      path: 'index.html',
      encoding: 'utf8',
      content: `<!doctype html><link rel="stylesheet" href="app.css"><style>body{background:url(bg.png)}</style><script type="module" src="js/0.js"></script><script>${module(99)}</script>`,
    },
    { path: 'app.css', encoding: 'utf8', content: '.a { background: url("img/a.png") } /* note */\n'.repeat(300) },
    ...Array.from({ length: 20 }, (_, i): BundleFileInput => ({ path: `js/${i}.js`, encoding: 'utf8', content: body(i) })),
  ];
}

/** The slowest shape measured for the scanners: one script of nested parentheses. */
function adversarial(size: number): BundleFileInput[] {
  return [
    { path: 'index.html', encoding: 'utf8', content: '<!doctype html>' },
    { path: 'a.js', encoding: 'utf8', content: `fetch(x);${'('.repeat(size - 100)}` },
  ];
}

const bundleOf = (files: BundleFileInput[]): BundleInput => ({
  manifest: { manifestVersion: 1, slug: 'bench', version: '1.0.0', title: 'Bench' },
  files,
});
const bytesOf = (files: BundleFileInput[]) => files.reduce((n, f) => n + Buffer.byteLength(f.content), 0);

const cases = [
  ['realistic', bundleOf(realistic(MAX_BUNDLE_BYTES))],
  ['adversarial', bundleOf(adversarial(MAX_BUNDLE_BYTES))],
] as const;

const baseline: number[] = [];
const results = new Map<string, number[]>();
const sample = (name: string, ms: number) => results.set(name, [...(results.get(name) ?? []), ms]);
// The first off-thread run starts the thread; it is not a sample.
await validateBundleOffThread(cases[0][1], 'bench');
for (let r = 0; r < rounds; r++) {
  const [, realisticBundle] = cases[0];
  baseline.push(await time(() => realisticBundle.files.map((f) => createHash('sha256').update(f.content).digest())));
  for (const [name, bundle] of cases) {
    sample(`validateBundle, ${name} (in process)`, await time(() => validateBundle(bundle)));
    sample(`validateBundle, ${name} (worker thread)`, await time(() => validateBundleOffThread(bundle, 'bench')));
  }
}

const base = median(baseline);
console.log(`bundle validation bench, ${rounds} rounds, medians; bundles of ${bytesOf(cases[0][1].files)} bytes`);
console.log(`${'baseline: sha256 of the same bytes'.padEnd(52)} ${base.toFixed(1).padStart(8)} ms  1.00x baseline`);
for (const [name, samples] of results) {
  const ms = median(samples);
  console.log(`${name.padEnd(52)} ${ms.toFixed(1).padStart(8)} ms  ${(ms / base).toFixed(2)}x baseline`);
  record({ name, value: ms, unit: 'ms', baseline: base });
}
