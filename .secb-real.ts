import { readFileSync } from 'node:fs';
import { validateBundle } from './schemas/bundle/validate-bundle.ts';

const src = readFileSync(process.argv[2]!, 'utf8').slice(0, 3 * 1024 * 1024 - 1000);
const m = { manifestVersion: 1, slug: 'abc', version: '1.0.0', title: 'x' };
for (let r = 0; r < 3; r++) {
  const t = performance.now();
  const res = validateBundle({
    manifest: m,
    files: [
      { path: 'index.html', encoding: 'utf8', content: '<p>' },
      { path: 'a.js', encoding: 'utf8', content: src },
    ],
  });
  console.log(Buffer.byteLength(src), res.ok, (performance.now() - t).toFixed(0), 'ms');
}
