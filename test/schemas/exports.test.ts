import { describe, expect, it } from 'vitest';
import { expectProblemAt, parsed, problemsOf } from './manifest-helpers.ts';

const query = (overrides: Record<string, unknown> = {}) => ({
  name: 'open_orders',
  title: 'Open orders',
  kind: 'query',
  type: 'sales.Order',
  ...overrides,
});
const exportProblems = (overrides: Record<string, unknown>) => problemsOf({ exports: [query(overrides)] });

describe('exports (query)', () => {
  it('fills defaults: description, input, where, select, sort, limit 200', () => {
    expect(parsed({ exports: [query()] }).exports).toEqual([
      { ...query(), description: '', input: {}, where: {}, select: [], sort: [], limit: 200 },
    ]);
  });

  it('accepts a complete query', () => {
    const full = query({
      description: 'Orders still open',
      input: { region: { type: 'text', title: 'Region', description: 'Sales region', required: true }, since: { type: 'date' } },
      where: { status: 'open', amount: { gte: 10, lt: 1000 }, region: { in: ['north', 'south'] }, closedAt: { null: true }, note: null },
      select: ['status', 'amount'],
      sort: ['-amount', 'status'],
      limit: 500,
    });
    const [item] = parsed({ exports: [full] }).exports;
    expect(item?.input['since']).toEqual({ type: 'date', required: false });
    expect(item?.where['amount']).toEqual({ gte: 10, lt: 1000 });
  });

  it.each(['text', 'integer', 'real', 'numeric', 'boolean', 'date', 'timestamp', 'json', 'text[]', 'number[]'])(
    'accepts input type %s',
    (type) => {
      expect(exportProblems({ input: { p: { type } } })).toEqual([]);
    },
  );

  it.each([
    ['manifest.exports[0].name', { name: 'Open' }],
    ['manifest.exports[0].name', { name: `a${'b'.repeat(40)}` }],
    ['manifest.exports[0].title', { title: '' }],
    ['manifest.exports[0].description', { description: 'x'.repeat(401) }],
    ['manifest.exports[0].kind', { kind: 'get' }],
    ['manifest.exports[0].type', { type: 'sales..Order' }],
    ['manifest.exports[0].type', { type: `a${'b'.repeat(80)}` }],
    ['manifest.exports[0].input.Region', { input: { Region: { type: 'text' } } }],
    ['manifest.exports[0].input.region.type', { input: { region: { type: 'string' } } }],
    ['manifest.exports[0].input.region.title', { input: { region: { type: 'text', title: 'x'.repeat(41) } } }],
    ['manifest.exports[0].input.region.description', { input: { region: { type: 'text', description: 'x'.repeat(301) } } }],
    ['manifest.exports[0].input.region.default', { input: { region: { type: 'text', default: 'x' } } }],
    ['manifest.exports[0].where.Status', { where: { Status: 'x' } }],
    [`manifest.exports[0].where.a${'b'.repeat(48)}`, { where: { [`a${'b'.repeat(48)}`]: 'x' } }],
    ['manifest.exports[0].where.status', { where: { status: 'x'.repeat(1001) } }],
    ['manifest.exports[0].where.status.gt', { where: { status: { gt: { nested: 1 } } } }],
    ['manifest.exports[0].where.status.like', { where: { status: { like: 'x' } } }],
    ['manifest.exports[0].where.status.in', { where: { status: { in: Array(51).fill(1) } } }],
    ['manifest.exports[0].where.status.in[0]', { where: { status: { in: [[1]] } } }],
    ['manifest.exports[0].where.status', { where: { status: {} } }],
    ['manifest.exports[0].where.status', { where: { status: [1, 2] } }],
    ['manifest.exports[0].select[0]', { select: ['Status'] }],
    ['manifest.exports[0].select', { select: Array(41).fill('a') }],
    ['manifest.exports[0].sort[0]', { sort: ['--amount'] }],
    ['manifest.exports[0].sort', { sort: ['a', 'b', 'c', 'd'] }],
    ['manifest.exports[0].limit', { limit: 0 }],
    ['manifest.exports[0].limit', { limit: 501 }],
    ['manifest.exports[0].limit', { limit: 2.5 }],
    ['manifest.exports[0].extra', { extra: true }],
  ])('rejects a bad value at %s', (path, overrides) => {
    expectProblemAt(exportProblems(overrides), path);
  });

  it('accepts every operator with scalars and arrays of up to 50 scalars', () => {
    const operators = ['eq', 'ne', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'contains', 'startsWith', 'null'];
    for (const op of operators) {
      expect(exportProblems({ where: { status: { [op]: 'x' } } })).toEqual([]);
      expect(exportProblems({ where: { status: { [op]: Array(50).fill(null) } } })).toEqual([]);
    }
  });

  it('rejects more than 24 exports and duplicate names', () => {
    expectProblemAt(problemsOf({ exports: Array.from({ length: 25 }, (_, i) => query({ name: `q${i}` })) }), 'manifest.exports', 'too_big');
    expectProblemAt(problemsOf({ exports: [query(), query()] }), 'manifest.exports[1].name', 'duplicate');
  });
});
