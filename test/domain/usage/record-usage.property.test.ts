// Property test: however increments are split among concurrent writers (single statements on
// separate connections, or many calls through group-committing meters), and whichever side of a
// month or day boundary they fall on, every counter ends as the exact sum of its increments.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../../domain/db/connect.ts';
import type { Db } from '../../../domain/db/database.ts';
import { type Meter, meterPeriod } from '../../../domain/usage/meters.ts';
import { recordUsage, type UsageIncrement } from '../../../domain/usage/record-usage.ts';
import { createUsageMeter } from '../../../domain/usage/usage-meter.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { counters, insertApps } from '../../support/usage.ts';

let database: TestDatabase;
let db: Db;
let appIds: string[];

beforeAll(async () => {
  database = await createTestDatabase();
  db = connectDatabase({ connectionString: database.url, maxConnections: 12 });
  appIds = await insertApps(database.db, ['prop-a', 'prop-b', 'prop-c']);
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

const METERS: Meter[] = ['compute.live', 'compute.model', 'model.tokens', 'model.cost'];
const BOUNDARY = Date.parse('2026-12-01T00:00:00Z');

const increment = fc.record({
  app: fc.integer({ min: 0, max: 2 }),
  meter: fc.constantFrom(...METERS),
  amount: fc.integer({ min: 0, max: 5_000_000 }),
  // Two minutes around midnight at the turn of a month (and a day).
  offsetMs: fc.integer({ min: -60_000, max: 60_000 }),
});
const writer = fc.record({
  how: fc.constantFrom('statement', 'meter-calls', 'meter-batch'),
  increments: fc.array(increment, { maxLength: 25 }),
});

describe('recordUsage under concurrency', () => {
  it('never loses or moves an increment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(writer, { minLength: 2, maxLength: 8 }), async (writers) => {
        await db.deleteFrom('usage_counters').execute();
        const meters = [createUsageMeter(db), createUsageMeter(db)];
        const expected: Record<string, number> = {};
        const work = writers.map((w, i) => {
          const incs: UsageIncrement[] = w.increments.map((x) => ({
            appId: appIds[x.app]!,
            meter: x.meter,
            amount: x.amount,
            at: new Date(BOUNDARY + x.offsetMs),
          }));
          for (const inc of incs) {
            if (inc.amount === 0) continue;
            const key = `${inc.appId} ${inc.meter} ${meterPeriod(inc.meter, inc.at)}`;
            expected[key] = (expected[key] ?? 0) + inc.amount;
          }
          const meter = meters[i % 2]!;
          if (w.how === 'statement') return recordUsage(db, incs);
          if (w.how === 'meter-batch') return meter.record(incs);
          return Promise.all(incs.map((inc) => meter.record(inc)));
        });
        await Promise.all(work);
        expect(await counters(db)).toEqual(expected);
      }),
      { numRuns: 40, seed: 20261122 },
    );
  });

  it('refuses amounts that are not non-negative integers, writing nothing', async () => {
    await db.deleteFrom('usage_counters').execute();
    const at = new Date(BOUNDARY);
    for (const amount of [-1, 1.5, Number.NaN, 2 ** 53]) {
      await expect(
        recordUsage(db, [
          { appId: appIds[0]!, meter: 'compute.live', amount: 5, at },
          { appId: appIds[0]!, meter: 'compute.live', amount, at },
        ]),
      ).rejects.toThrow(RangeError);
    }
    expect(await counters(db)).toEqual({});

    // Through a meter the bad call is refused alone: the calls sharing its statement still land.
    const meter = createUsageMeter(db);
    const good = { appId: appIds[1]!, meter: 'model.tokens' as const, amount: 7, at };
    const results = await Promise.allSettled([meter.record(good), meter.record({ ...good, amount: -7 }), meter.record(good)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await counters(db)).toEqual({ [`${appIds[1]} model.tokens 2026-12-01`]: 14 });
  });
});
