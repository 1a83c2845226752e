// Every bench reports its figures here: printed as it goes, and appended as JSON lines to the
// file named by SVC_BENCH_FIGURES, from which `npm run bench` prints its one table.
import { appendFileSync } from 'node:fs';
import path from 'node:path';

export interface Figure {
  /** What was measured, e.g. `GET /api/v1/developer/me at saturation`. */
  name: string;
  value: number;
  unit: string;
  /** The same-run baseline it is compared with, in the same unit, when there is one. */
  baseline?: number;
  /** The goal, as text (`ratio >= 0.5`, `< 10 ms`). */
  goal?: string;
}

const bench = path.basename(process.argv[1] ?? 'bench', '.ts');

/**
 * Whether the figure meets its goal, read from the goal's text: `< 100 ms`, `<= 0.3`, `0` (equal),
 * or a ratio to the same-run baseline (`>= 0.5x bare Koa`). Undefined: no goal, or one this cannot
 * judge (`flat (about 0)`): the reader judges it.
 */
export function goalMet(figure: Figure): boolean | undefined {
  const goal = /^\s*(<=|>=|<|>|=)?\s*(\d+(?:\.\d+)?)(x?)(?=\s|$)/.exec(figure.goal ?? '');
  if (!goal) return undefined;
  const [, op = '=', bound, ratio] = goal;
  if (ratio && !figure.baseline) return undefined;
  const value = ratio ? figure.value / figure.baseline! : figure.value;
  const limit = Number(bound);
  return { '<': value < limit, '<=': value <= limit, '>': value > limit, '>=': value >= limit, '=': value === limit }[op];
}

/** ✓ or ✗ beside a goal this can judge (goalMet). */
export function verdict(figure: Figure): string {
  const met = goalMet(figure);
  return met === undefined ? '' : met ? '✓' : '✗';
}

/** Prints the figure and records it for the table. */
export function report(figure: Figure): void {
  const ratio = figure.baseline
    ? ` (${(figure.value / figure.baseline).toFixed(2)}x baseline ${round(figure.baseline)} ${figure.unit})`
    : '';
  const goal = figure.goal ? `  goal: ${figure.goal} ${verdict(figure)}` : '';
  console.log(`${figure.name.padEnd(64)} ${round(figure.value).padStart(10)} ${figure.unit}${ratio}${goal}`);
  record(figure);
}

/** Records the figure for the table only (for benches that print their own, richer lines). */
export function record(figure: Figure): void {
  if (process.env.SVC_BENCH_FIGURES) appendFileSync(process.env.SVC_BENCH_FIGURES, `${JSON.stringify({ bench, ...figure })}\n`);
}

export const round = (n: number): string => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toFixed(3));
