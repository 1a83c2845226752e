import type { Db } from '../../domain/db/index.ts';
import { findOntology, writeEdits } from '../../domain/ontology/index.ts';
import type { BenchService } from './service.ts';

// `bench.Item {id, n}` of cell-bench, defined through the API, and a writer that changes its one
// object `x` as the one writer does (the first write creates it): for benches of the change feed.

export async function defineBenchItem(bench: Pick<BenchService, 'call' | 'developerKey'>): Promise<void> {
  await bench.call(
    'POST',
    '/api/v1/developer/semantic/cell-bench/types',
    {
      types: [
        {
          apiName: 'bench.Item',
          primaryKey: 'id',
          properties: { id: { dataType: { type: 'string' } }, n: { dataType: { type: 'integer' } } },
        },
      ],
    },
    bench.developerKey,
  );
}

/** Commits `n` on object `x` (created by the first call); resolves to the change's sequence number. */
export async function benchItemWriter(db: Db): Promise<(n: number) => Promise<number>> {
  const companyId = (await findOntology(db, 'cell-bench'))!.companyId;
  let operation = 0;
  return async (n) => {
    const result = await db.transaction().execute((trx) =>
      writeEdits(trx, {
        companyId,
        accountId: null,
        operationId: `bench-${++operation}`,
        actionTypeRid: null,
        edits: [
          operation === 1
            ? { type: 'create', objectType: 'bench.Item', properties: { id: 'x', n } }
            : { type: 'modify', objectType: 'bench.Item', primaryKey: 'x', properties: { n } },
        ],
      }),
    );
    return result.seq!.to;
  };
}
