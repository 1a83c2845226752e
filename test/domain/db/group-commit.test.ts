import { describe, expect, it } from 'vitest';
import type { Db } from '../../../domain/db/index.ts';
import { groupCommit } from '../../../domain/db/index.ts';

// The batching rules alone: `write` stands in for a transaction, the database only keys the queues.
const dbA = {} as Db;
const dbB = {} as Db;

describe('groupCommit', () => {
  it('writes the first item at once and everything that arrives meanwhile in one next batch, each call answered with its own result', async () => {
    const batches: number[][] = [];
    const write = groupCommit<number, string>(async (_db, batch) => {
      batches.push([...batch]);
      await new Promise((r) => setTimeout(r, 5));
      return batch.map((n) => `r${n}`);
    });
    const results = await Promise.all([1, 2, 3, 4].map((n) => write(dbA, n)));
    expect(results).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('keeps one queue per database', async () => {
    const seen: [Db, number[]][] = [];
    const write = groupCommit<number>(async (db, batch) => {
      seen.push([db, [...batch]]);
    });
    await Promise.all([write(dbA, 1), write(dbB, 2), write(dbA, 3)]);
    expect(seen.filter(([db]) => db === dbB).map(([, b]) => b)).toEqual([[2]]);
    expect(seen.filter(([db]) => db === dbA).flatMap(([, b]) => b)).toEqual([1, 3]);
  });

  it('writes a failed batch again item by item: only the bad item fails, the others commit', async () => {
    const committed: number[] = [];
    const write = groupCommit<number>(async (_db, batch) => {
      if (batch.includes(13)) throw new Error(`bad item in ${batch.join(',')}`);
      committed.push(...batch);
    });
    const first = write(dbA, 1);
    const rest = [12, 13, 14].map((n) =>
      write(dbA, n).then(
        () => 'ok',
        (err: Error) => err.message,
      ),
    );
    await first;
    expect(await Promise.all(rest)).toEqual(['ok', 'bad item in 13', 'ok']);
    expect(committed.sort((a, b) => a - b)).toEqual([1, 12, 14]);
  });

  it('goes on after a failure: a later item is written', async () => {
    let fail = true;
    const write = groupCommit<number>(async () => {
      if (fail) throw new Error('down');
    });
    await expect(write(dbA, 1)).rejects.toThrow('down');
    fail = false;
    await expect(write(dbA, 2)).resolves.toBeUndefined();
  });

  it('bounds a batch by weight, oldest first; an item heavier than the bound goes alone', async () => {
    const batches: string[][] = [];
    const write = groupCommit<string>(
      async (_db, batch) => {
        batches.push([...batch]);
        await new Promise((r) => setTimeout(r, 5));
      },
      { maxWeight: 5, weight: (s) => s.length },
    );
    await Promise.all(['a', 'bb', 'ccc', 'd', 'eeeeeee', 'ff', 'g'].map((s) => write(dbA, s)));
    expect(batches).toEqual([['a'], ['bb', 'ccc'], ['d'], ['eeeeeee'], ['ff', 'g']]);
  });

  it('with gatherTurn, the calls of the rest of the turn join the first write', async () => {
    const batches: number[][] = [];
    const write = groupCommit<number>(
      async (_db, batch) => {
        batches.push([...batch]);
      },
      { gatherTurn: true },
    );
    const first = write(dbA, 1);
    await Promise.resolve();
    await Promise.all([first, write(dbA, 2), write(dbA, 3)]);
    expect(batches).toEqual([[1, 2, 3]]);
  });
});
