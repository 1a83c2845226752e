// `npm run bench`: every benchmark in this folder and in each workspace package's bench/ folder,
// one after another, each in its own process, then one table of every figure they reported
// (bench/support/report.ts) with its same-run baseline, ratio and goal.
// `npm run bench -- <name> [<name> ...]` runs only those (file names without .ts, e.g. keyed-path).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, round, verdict } from './support/report.ts';

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
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !all.some((f) => basename(f, '.ts') === w));
if (unknown.length) {
  console.error(`unknown bench ${unknown.join(', ')}; there are: ${all.map((f) => basename(f, '.ts')).join(', ')}`);
  process.exit(2);
}
const benches = wanted.length ? all.filter((f) => wanted.includes(basename(f, '.ts'))) : all;

const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-figures-'));
const figuresFile = join(scratch, 'figures.jsonl');
const failed: string[] = [];
for (const file of benches) {
  console.log(`\n== ${relative(root, file)}`);
  const { status } = spawnSync(process.execPath, [file], { stdio: 'inherit', env: { ...process.env, SVC_BENCH_FIGURES: figuresFile } });
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
    verdict(f),
  ]),
];
const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
const judged = figures.map(verdict).filter(Boolean);
console.log(
  `\n== every figure (${figures.length}), ratio = value / same-run baseline; goals met: ${judged.filter((v) => v === '✓').length} of ${judged.length} judged`,
);
for (const r of rows)
  console.log(r.map((cell, c) => (c === 2 || c === 3 || c === 4 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  '));
if (failed.length) console.log(`\nfailed: ${failed.join(', ')}`);
process.exit(failed.length ? 1 : 0);
