import { describe, expect, it } from 'vitest';
import {
  BudgetExceededError,
  EVALUATION_LIMITS,
  EvaluationBudget,
  ExpressionError,
  evaluateExpression,
  MAX_PER_ITEM_NESTING,
  parseExpression,
  perItemNesting,
} from '../../../domain/app-workflows/expression.ts';

const scope = {
  steps: {
    orders: [
      { total: 5, region: 'north' },
      { total: 7, region: 'south' },
      { total: 3, region: 'north' },
    ],
  },
  input: { region: 'north', threshold: 4 },
  row: { total: 5 },
};
const run = (text: string) => evaluateExpression(text, scope);

describe('expressions', () => {
  it('evaluates names, members, operators with precedence, conditionals and functions', () => {
    expect(run('=1 + 2 * 3')).toBe(7);
    expect(run('=(1 + 2) * 3')).toBe(9);
    expect(run('=-2 + 5 % 3')).toBe(0);
    expect(run('=input.region == "north" && input.threshold >= 4')).toBe(true);
    expect(run("=!(1 < 2) || 'x'")).toBe('x');
    expect(run('=len(steps.orders) > 2 ? "many" : "few"')).toBe('many');
    expect(run('=steps.orders[1].region')).toBe('south');
    expect(run('=sum(pluck(steps.orders, "total"))')).toBe(15);
    expect(run('=map(filter(steps.orders, item.region == input.region), item.total)')).toEqual([5, 3]);
    expect(run('=round(sum(pluck(steps.orders, "total")) / 4, 1)')).toBe(3.8);
    expect(run('=concat(upper("a"), lower("B"), 1, null)')).toBe('Ab1');
    expect(run('=max(3, 9, 4)')).toBe(9);
    expect(run('=coalesce(input.missing, row.total)')).toBe(5);
    expect(run('=1 / 0')).toBeNull();
    expect(run('="a" + 1')).toBe('a1');
  });

  it('reads own data only: prototype names and unknown names are null', () => {
    expect(run('=input.constructor')).toBeNull();
    expect(run('=input["__proto__"]')).toBeNull();
    expect(run('=toString')).toBeNull();
    expect(run('=steps.orders.length')).toBeNull();
  });

  it('refuses malformed text with the position, unknown functions and deep nesting', () => {
    expect(() => parseExpression('=1 +')).toThrow(ExpressionError);
    expect(() => parseExpression('=eval("1")')).toThrow(/unknown function "eval"/);
    expect(() => parseExpression('=1 2')).toThrow(/at character 3/);
    expect(() => parseExpression('="open')).toThrow(/unterminated string/);
    expect(() => parseExpression('=a ; b')).toThrow(/unexpected character/);
    expect(() => parseExpression(`=${'('.repeat(200)}1${')'.repeat(200)}`)).toThrow(/nested too deeply/);
    expect(() => parseExpression(`=${'!'.repeat(200)}1`)).toThrow(/nested too deeply/);
  });

  it('parses the longest allowed text of any shape (2000 characters) in one pass', () => {
    // Linear by construction: each token is read once; these would be slow for a backtracking reader.
    const sums = `=${Array.from({ length: 666 }, () => '1').join('+')}`;
    expect(run(sums)).toBe(666);
    const members = `=input${'.a'.repeat(999)}`;
    expect(run(members)).toBeNull();
  });

  it('five nested maps over a 35-item list (35^5 ≈ 52 million evaluations) stop at the step budget', () => {
    const list = Array.from({ length: 35 }, (_, i) => i);
    const nested = '=sum(map(input.l, sum(map(input.l, sum(map(input.l, sum(map(input.l, sum(map(input.l, item))))))))))';
    const budget = new EvaluationBudget();
    expect(() => evaluateExpression(nested, { input: { l: list } }, budget)).toThrow(BudgetExceededError);
    expect(() => evaluateExpression(nested, { input: { l: list } })).toThrow(/evaluation budget exceeded: more than 1000000 steps/);
    // Counted before each step is taken: exactly the limit, never past it.
    expect(budget.steps).toBe(EVALUATION_LIMITS.steps);
  });

  it('five nested maps building lists over a 35-item list stop at the output budget', () => {
    const list = Array.from({ length: 35 }, (_, i) => i);
    const budget = new EvaluationBudget();
    expect(() =>
      evaluateExpression('=map(input.l, map(input.l, map(input.l, map(input.l, map(input.l, item)))))', { input: { l: list } }, budget),
    ).toThrow(/evaluation budget exceeded: output larger than 1048576 bytes/);
    expect(budget.outputBytes).toBeLessThanOrEqual(EVALUATION_LIMITS.outputBytes);
    expect(budget.steps).toBeLessThan(EVALUATION_LIMITS.steps);
  });

  it('covers lists from any source: a platform-sized list in the scope, with no input at all', () => {
    const accounts = Array.from({ length: 20_000 }, (_, i) => ({ username: `u${i}`, email: `u${i}@example.com`, role: 'member' }));
    const budget = new EvaluationBudget();
    const scope = { steps: { people: accounts } };
    expect(() => evaluateExpression('=len(filter(steps.people, len(filter(steps.people, item.role == "x")) > 0))', scope, budget)).toThrow(
      /more than 1000000 steps/,
    );
    expect(budget.steps).toBe(EVALUATION_LIMITS.steps);
    // Returning a list of references to the whole input per item is output at the input's size each time.
    expect(() => evaluateExpression('=map(steps.people, steps.people)', scope)).toThrow(/output larger than/);
  });

  it('counts string building by the characters produced', () => {
    const budget = new EvaluationBudget();
    expect(evaluateExpression('=concat("ab", "cde")', {}, budget)).toBe('abcde');
    // 3 nodes, 2 arguments visited, 5 characters built.
    expect(budget.steps).toBe(3 + 2 + 5);
    expect(budget.outputBytes).toBe(5);
    const long = 'x'.repeat(300_000);
    expect(() => evaluateExpression('=join(map(input.l, input.s + input.s), "")', { input: { l: [1, 2, 3, 4], s: long } })).toThrow(
      BudgetExceededError,
    );
  });

  it('shares one budget between the expressions given it, and says whose budget ran out', () => {
    const budget = new EvaluationBudget({ steps: 10, outputBytes: 100, of: 'the run’s' });
    evaluateExpression('=1 + 2', {}, budget);
    evaluateExpression('=1 + 2', {}, budget);
    expect(budget.steps).toBe(6);
    expect(() => evaluateExpression('=1 + 2 + 3', {}, budget)).toThrow(/more than 10 steps, the run’s/);
  });

  it('measures how deep map and filter nest in item expressions', () => {
    expect(perItemNesting(parseExpression('=map(filter(steps.a, item.x), item.y)'))).toBe(1);
    expect(perItemNesting(parseExpression('=map(steps.a, map(item.b, map(item.c, 1)))'))).toBe(3);
    expect(perItemNesting(parseExpression('=len(map(l, map(l, map(l, map(l, map(l, item))))))'))).toBeGreaterThan(MAX_PER_ITEM_NESTING);
  });
});
