// `npm run bench`: every benchmark in this folder and in each workspace package's bench/ folder,
// one after another, each in its own process, then one table of every figure they reported
// (bench/support/report.ts) with its same-run baseline, ratio and goal.
// `npm run bench -- <name> [<name> ...]` runs only those (file names without .ts, e.g. keyed-path).
// `npm run bench -- --quick` runs the headline benches (QUICK) with shorter arguments, in under 3
// minutes on 2 cores: their figures are noisier, for checking a change, not for the record.
// Benches run with `npm start`'s settings; `npx node bench/<file>.ts` runs one with the shell's.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, round, verdict } from './support/report.ts';
import { START_SETTINGS } from './support/start-settings.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');
// Workspaces are listed as plain folders in package.json (no globs).
const { workspaces = [] } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces?: string[] };
const dirs = [here, ...workspaces.map((w) => join(root, w, 'bench')).filter((d) => existsSync(d))];
const all = dirs.flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !(dir === here && f === 'run.ts'))
    .sort()
    .map((f) => join(dir, f)),
);
/**
 * The headline figures of issue 37 and their arguments for `--quick` (each bench's own usage line
 * says what they are): the keyed path and the ticket path, opening an app, memory of both
 * roles under load, app workflow runs.
 */
const QUICK: Record<string, string[]> = {
  'keyed-path': ['2', '1'],
  hosting: ['2'],
  soak: ['10', '20'],
  'app-workflows': ['150', '20'],
};
const quick = process.argv.includes('--quick');
const wanted = quick ? Object.keys(QUICK) : process.argv.slice(2);
const unknown = wanted.filter((w) => !all.some((f) => basename(f, '.ts') === w));
if (unknown.length) {
  console.error(`unknown bench ${unknown.join(', ')}; there are: ${all.map((f) => basename(f, '.ts')).join(', ')}`);
  process.exit(2);
}
const benches = wanted.length ? all.filter((f) => wanted.includes(basename(f, '.ts'))) : all;

const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-figures-'));
const figuresFile = join(scratch, 'figures.jsonl');
const failed: string[] = [];
// Ratios are of the same run, but how busy the machine was says how far to trust the rest.
const loadBefore = loadavg()[0]!;
const started = performance.now();
// The workflow bundle built once (`npm run build`, as the image does) rather than by each service
// with the worker on a fresh data folder.
if (quick) spawnSync(process.execPath, [join(root, 'worker/build-bundle.ts')], { stdio: 'inherit' });
for (const file of benches) {
  const args = quick ? (QUICK[basename(file, '.ts')] ?? []) : [];
  console.log(`\n== ${relative(root, file)} ${args.join(' ')}`);
  // Each bench runs as the service runs, with `npm start`'s V8 flags and allocator settings: most
  // benches run the service in their own process, and the shell's settings are not the service's.
  const { status } = spawnSync(process.execPath, [...START_SETTINGS.nodeFlags, file, ...args], {
    stdio: 'inherit',
    env: { ...START_SETTINGS.env, ...process.env, SVC_BENCH_FIGURES: figuresFile },
  });
  if (status !== 0) failed.push(basename(file, '.ts'));
}
const figures = existsSync(figuresFile)
  ? readFileSync(figuresFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Figure & { bench: string })
  : [];
rmSync(scratch, { recursive: true, force: true });

const rows = [
  ['bench', 'figure', 'value', 'baseline', 'ratio', 'goal', 'met'],
  ...figures.map((f) => [
    f.bench,
    f.name,
    `${round(f.value)} ${f.unit}`,
    f.baseline ? `${round(f.baseline)} ${f.unit}` : '',
    f.baseline ? `${(f.value / f.baseline).toFixed(2)}x` : '',
    f.goal ?? '',
    // No goal: a baseline or context; a goal this cannot read (`not judged on 2 cores`): the reader's.
    verdict(f) || (f.goal ? '?' : '-'),
  ]),
];
const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
const judged = figures.map(verdict).filter(Boolean);
console.log(
  `\n== every figure (${figures.length}${quick ? ', --quick' : ''}), ratio = value / same-run baseline; goals met: ${judged.filter((v) => v === '✓').length} of ${judged.length} judged (${figures.length - judged.length} without a goal: baselines and context)`,
);
console.log(
  `${availableParallelism()} cores, load average ${loadBefore.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end, ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
for (const r of rows)
  console.log(r.map((cell, c) => (c === 2 || c === 3 || c === 4 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  '));
if (failed.length) console.log(`\nfailed: ${failed.join(', ')}`);
process.exit(failed.length ? 1 : 0);
