// `npm run bench`: every benchmark in this folder, one after another, each in its own process.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const benches = readdirSync(here).filter((f) => f.endsWith('.ts') && f !== 'run.ts').sort();
let failed = 0;
for (const file of benches) {
  console.log(`\n== bench/${file}`);
  const { status } = spawnSync(process.execPath, [`${here}${file}`], { stdio: 'inherit' });
  if (status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
