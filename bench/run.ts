// `npm run bench`: every benchmark in this folder and in each workspace package's bench/ folder,
// one after another, each in its own process.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');
// Workspaces are listed as plain folders in package.json (no globs).
const { workspaces = [] } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces?: string[] };
const dirs = [here, ...workspaces.map((w) => join(root, w, 'bench')).filter((d) => existsSync(d))];
const benches = dirs.flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !(dir === here && f === 'run.ts'))
    .sort()
    .map((f) => join(dir, f)),
);
let failed = 0;
for (const file of benches) {
  console.log(`\n== ${relative(root, file)}`);
  const { status } = spawnSync(process.execPath, [file], { stdio: 'inherit' });
  if (status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
