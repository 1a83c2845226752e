import type { WorkflowStep } from '../../schemas/manifest/index.ts';
import { DomainError } from '../errors.ts';
import { type EvaluationBudget, evaluateExpression, parseExpression, type Scope } from './expression.ts';

// The `compute` step: per-row (new fields per row), join (hash join on one property each side)
// and summarize (group by, measures). Each is one pass over its rows, every row counted against
// the step's evaluation budget, and every row built counted as output at its size (a join's
// matches can be many more rows than its sides).

type ComputeStep = Extract<WorkflowStep, { kind: 'compute' }>;
type Row = Record<string, unknown>;

const isRow = (v: unknown): v is Row => v !== null && typeof v === 'object' && !Array.isArray(v);

function rowsOf(expression: string, scope: Scope, what: string, budget: EvaluationBudget): Row[] {
  const value = evaluateExpression(expression, scope, budget);
  if (!Array.isArray(value)) throw new DomainError('invalid_payload', `${what} (${expression}) is not a list of rows.`);
  budget.spend(value.length);
  return value.filter(isRow);
}

/** A row about to be built from parts of these sizes. */
function buildRow(budget: EvaluationBudget, ...parts: unknown[]): void {
  budget.spend(1);
  budget.produce(parts.reduce<number>((size, part) => size + budget.sizeOf(part), 0));
}

/** Join and group keys: a value's JSON text, so 1 and "1" stay different keys. */
const keyOf = (value: unknown) => JSON.stringify(value ?? null);

export function runCompute(step: ComputeStep, scope: Scope, budget: EvaluationBudget): Row[] {
  switch (step.op) {
    case 'per-row': {
      const fields = Object.entries(step.fields).map(([name, text]) => [name, parseExpression(text)] as const);
      return rowsOf(step.from, scope, 'from', budget).map((row) => {
        const out: Row = { ...row };
        const rowScope = { ...scope, row };
        for (const [name, node] of fields) out[name] = evaluateExpression(node, rowScope, budget);
        buildRow(budget, out);
        return out;
      });
    }
    case 'join': {
      const right = new Map<string, Row[]>();
      for (const row of rowsOf(step.right, scope, 'right', budget)) {
        const key = keyOf(row[step.on.right]);
        const list = right.get(key);
        if (list) list.push(row);
        else right.set(key, [row]);
      }
      return rowsOf(step.left, scope, 'left', budget).flatMap((row) => {
        const matches = right.get(keyOf(row[step.on.left]));
        if (matches)
          return matches.map((match) => {
            buildRow(budget, match, row);
            return { ...match, ...row };
          });
        return step.type === 'left' ? [row] : [];
      });
    }
    case 'summarize': {
      const groups = new Map<string, { key: Row; rows: Row[] }>();
      for (const row of rowsOf(step.from, scope, 'from', budget)) {
        const key = Object.fromEntries(step.groupBy.map((p) => [p, row[p] ?? null]));
        const k = keyOf(step.groupBy.map((p) => row[p] ?? null));
        const group = groups.get(k);
        if (group) group.rows.push(row);
        else groups.set(k, { key, rows: [row] });
      }
      return [...groups.values()].map(({ key, rows }) => {
        const out: Row = { ...key };
        for (const [name, m] of Object.entries(step.measures)) {
          const values = m.of === undefined ? [] : rows.map((r) => r[m.of!]).filter((v): v is number => typeof v === 'number');
          out[name] = measure(m.fn, rows.length, values);
        }
        return out;
      });
    }
  }
}

function measure(fn: 'count' | 'sum' | 'avg' | 'min' | 'max', count: number, values: number[]): number | null {
  if (fn === 'count') return count;
  if (values.length === 0) return fn === 'sum' ? 0 : null;
  if (fn === 'sum') return values.reduce((a, b) => a + b, 0);
  if (fn === 'avg') return values.reduce((a, b) => a + b, 0) / values.length;
  return values.reduce((a, b) => ((fn === 'min' ? b < a : b > a) ? b : a));
}
