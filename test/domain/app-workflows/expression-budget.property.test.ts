// Property: any expression over any input finishes, with a result or BudgetExceededError (or an
// ExpressionError the language defines), and the counters never pass the limits. Expressions are
// drawn from what multiplies work: map and filter nested in each other's item expression, string
// building (concat, +, join, upper) and iterating functions, over lists of thousands of items
// and long strings. The count is exact: the steps an evaluation counted are exactly the budget it
// needs (one step less fails). Output is bounded: what an expression answers is no larger in JSON
// than the output limit plus its input (a value of the input may be answered as it is).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BudgetExceededError,
  EVALUATION_LIMITS,
  EvaluationBudget,
  type EvaluationLimits,
  ExpressionError,
  evaluateExpression,
  parseExpression,
} from '../../../domain/app-workflows/expression.ts';

const rows = Array.from({ length: 3000 }, (_, i) => ({ n: i, s: `row-${i}-${'x'.repeat(i % 40)}` }));
const scope = {
  steps: { accounts: rows },
  input: { nums: Array.from({ length: 5000 }, (_, i) => i % 97), text: 'lorem ipsum '.repeat(2000) },
};
const inputSize = JSON.stringify(scope).length;

// Lists, item expressions (they see `item`) and scalars, nested to any depth fast-check picks.
const { list } = fc.letrec<{ list: string; value: string }>((tie) => ({
  list: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('steps.accounts', 'input.nums', 'pluck(steps.accounts, "s")'),
    fc.tuple(tie('list'), tie('value')).map(([l, v]) => `map(${l}, ${v})`),
    fc.tuple(tie('list'), tie('value')).map(([l, v]) => `filter(${l}, ${v})`),
  ),
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('item', 'item.n', 'item.s', 'input.text', '1', '"ab"'),
    tie('list'),
    tie('list').map((l) => `len(${l})`),
    tie('list').map((l) => `sum(${l})`),
    tie('list').map((l) => `join(${l}, "-")`),
    fc.tuple(tie('value'), tie('value')).map(([a, b]) => `concat(${a}, ${b})`),
    fc.tuple(tie('value'), tie('value')).map(([a, b]) => `${a} + ${b}`),
    tie('value').map((v) => `upper(${v})`),
    fc.tuple(tie('list'), tie('value')).map(([l, v]) => `contains(${l}, ${v})`),
  ),
}));
const expression = fc.oneof(
  list,
  list.map((l) => `len(${l})`),
);

/** Evaluates under `limits`: the value, or the error if it is one the language defines. */
function attempt(text: string, limits: EvaluationLimits) {
  const budget = new EvaluationBudget(limits);
  try {
    return { budget, value: evaluateExpression(text, scope, budget) };
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    return { budget, error };
  }
}

function checkBounds(text: string, limits: EvaluationLimits) {
  const { budget, value, error } = attempt(text, limits);
  expect(budget.steps).toBeLessThanOrEqual(limits.steps);
  expect(budget.outputBytes).toBeLessThanOrEqual(limits.outputBytes);
  if (error) return { budget, error };
  expect(JSON.stringify(value ?? null).length).toBeLessThanOrEqual(limits.outputBytes + inputSize);
  return { budget, value };
}

describe('the evaluation budget', () => {
  it('stops every nested map/filter/string-building expression over large inputs within a small budget', () => {
    const limits = { steps: 20_000, outputBytes: 64 * 1024 };
    fc.assert(
      fc.property(expression, (text) => {
        parseExpression(text);
        checkBounds(text, limits);
      }),
      { numRuns: 300 },
    );
  });

  it('stops them within the service’s own limits too', () => {
    fc.assert(
      fc.property(expression, (text) => {
        checkBounds(text, EVALUATION_LIMITS);
      }),
      { numRuns: 25 },
    );
  });

  it('counts exactly: an evaluation needs the steps it counted, and one step less runs out', () => {
    const limits = { steps: 20_000, outputBytes: 64 * 1024 };
    fc.assert(
      fc.property(expression, (text) => {
        const first = checkBounds(text, limits);
        if (first.error) return;
        const exact = attempt(text, { ...limits, steps: first.budget.steps });
        expect(exact.error).toBeUndefined();
        expect(exact.value).toEqual(first.value);
        const less = attempt(text, { ...limits, steps: first.budget.steps - 1 });
        expect(less.error).toBeInstanceOf(BudgetExceededError);
        expect(less.budget.steps).toBeLessThanOrEqual(first.budget.steps - 1);
      }),
      { numRuns: 150 },
    );
  });
});
