import { describe, expect, it } from 'vitest';
import { ExpressionError, evaluateExpression, parseExpression } from '../../../domain/app-workflows/expression.ts';

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
});
