import type { WorkflowStep } from '../../schemas/manifest/index.ts';
import { runCompute } from './compute.ts';
import { type EvaluationBudget, evaluateExpression, isTruthy, resolveValue, type Scope, textOf } from './expression.ts';

// Everything a step computes from its expressions, with no I/O: run on a worker thread
// (evaluation-threads.ts) under one budget for all the step's expressions; the activity then
// does the step's I/O (capability, model, mail) with these values.

type Row = Record<string, unknown>;

export type StepEvaluation =
  /** `when` was false. */
  | { run: false }
  | { run: true; kind: 'use'; input: Record<string, unknown> }
  | { run: true; kind: 'compute'; output: Row[] }
  | { run: true; kind: 'model'; input: unknown }
  | { run: true; kind: 'notify'; subject: string; body: string; dedupeKey: string };

export function evaluateStep(step: WorkflowStep, scope: Scope, budget: EvaluationBudget): StepEvaluation {
  if (step.when !== undefined && !isTruthy(evaluateExpression(step.when, scope, budget))) return { run: false };
  switch (step.kind) {
    case 'use':
      return {
        run: true,
        kind: 'use',
        input: Object.fromEntries(
          Object.entries(step.input).map(([name, value]) => [name, typeof value === 'string' ? resolveValue(value, scope, budget) : value]),
        ),
      };
    case 'compute':
      return { run: true, kind: 'compute', output: runCompute(step, scope, budget) };
    case 'model':
      return { run: true, kind: 'model', input: evaluateExpression(step.input, scope, budget) };
    case 'notify': {
      const text = (value: string, max: number) => textOf(resolveValue(value, scope, budget), budget).slice(0, max);
      return {
        run: true,
        kind: 'notify',
        subject: text(step.subject, 250),
        body: text(step.body, 1000),
        dedupeKey: text(step.dedupeKey, 200),
      };
    }
  }
}

/** The `=` expressions in a value (a step, a where clause), with their paths. */
export function expressionsOf(value: unknown, at = ''): [string, string][] {
  if (typeof value === 'string') return value.startsWith('=') ? [[value, at]] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => expressionsOf(v, `${at}[${i}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => expressionsOf(v, at ? `${at}.${k}` : k));
  return [];
}
