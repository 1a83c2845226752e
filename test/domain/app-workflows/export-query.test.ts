import { describe, expect, it } from 'vitest';
import { exportQuery } from '../../../domain/app-workflows/export-query.ts';
import { manifestSchema } from '../../../schemas/manifest/index.ts';
import { bundle } from '../../support/bundles.ts';

// An export's where, select, sort and limit as the data layer's search request.

const exportOf = (item: object) =>
  manifestSchema.parse({
    ...bundle('orders', '1.0.0').manifest,
    exports: [{ name: 'q', title: 'Q', kind: 'query', type: 'sales.Order', ...item }],
  }).exports[0]!;

describe('exportQuery', () => {
  it('maps each operator, evaluates =input.… expressions and drops conditions on parameters not given', async () => {
    const item = exportOf({
      input: { min: { type: 'real' }, tag: { type: 'text' } },
      where: {
        status: 'open',
        note: null,
        amount: { gt: '=input.min', lte: 100 },
        tags: { contains: '=input.tag' },
        kind: { ne: 'test', nin: ['a', 'b'] },
        region: { in: ['north', 'south'], null: false },
        name: { startsWith: 'A' },
      },
      select: ['number'],
      sort: ['-amount', 'number'],
      limit: 20,
    });
    expect(await exportQuery(item, { min: 10 })).toEqual({
      where: {
        type: 'and',
        value: [
          { type: 'eq', field: 'status', value: 'open' },
          { type: 'isNull', field: 'note', value: true },
          { type: 'gt', field: 'amount', value: 10 },
          { type: 'lte', field: 'amount', value: 100 },
          { type: 'not', value: { type: 'eq', field: 'kind', value: 'test' } },
          { type: 'not', value: { type: 'in', field: 'kind', value: ['a', 'b'] } },
          { type: 'in', field: 'region', value: ['north', 'south'] },
          { type: 'isNull', field: 'region', value: false },
          { type: 'startsWith', field: 'name', value: 'A' },
        ],
      },
      select: ['number'],
      orderBy: {
        fields: [
          { field: 'amount', direction: 'desc' },
          { field: 'number', direction: 'asc' },
        ],
      },
      pageSize: 20,
    });
  });

  it('answers every object up to the limit when there is no condition', async () => {
    expect(await exportQuery(exportOf({}), {})).toEqual({ pageSize: 200 });
  });

  it('five nested maps over a 35-item input list in a where value: query_invalid ExpressionBudgetExceeded, not 52 million evaluations', async () => {
    const nested = '=len(map(input.tags, map(input.tags, map(input.tags, map(input.tags, map(input.tags, item))))))';
    const item = exportOf({ input: { tags: { type: 'text[]' } }, where: { status: nested } });
    const tags = Array.from({ length: 35 }, (_, i) => `t${i}`);
    await expect(exportQuery(item, { tags })).rejects.toMatchObject({
      code: 'query_invalid',
      message: expect.stringContaining('evaluation budget exceeded'),
      details: { errorName: 'ExpressionBudgetExceeded', api: 'q' },
    });
  });

  it('an expression that fails with this input is query_invalid ExpressionFailed, never a 500', async () => {
    const item = exportOf({ input: { n: { type: 'text' } }, where: { amount: { gt: '=input.n * 2' } } });
    await expect(exportQuery(item, { n: 'x' })).rejects.toMatchObject({
      code: 'query_invalid',
      details: { errorName: 'ExpressionFailed' },
    });
  });
});
