import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../../domain/errors.ts';
import { assertModelCallAllowed, assertTriggerMayStart, microToDecimal } from '../../../domain/usage/check-quota.ts';
import { nextDayStart, nextMonthStart, periodOf, previousMonth } from '../../../domain/usage/meters.ts';
import { recordMonthlyReset } from '../../../domain/usage/record-monthly-reset.ts';
import { recordUsage } from '../../../domain/usage/record-usage.ts';
import { TestClock } from '../../support/clock.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { insertApps } from '../../support/usage.ts';

// The gates that wait for their producers (app workflow triggers, model calls) and the monthly
// reset's bookkeeping, on a real PostgreSQL at exact instants.

let database: TestDatabase;
let capped: string;
let plain: string;
const clock = new TestClock('2026-12-31T23:30:00Z');

beforeAll(async () => {
  database = await createTestDatabase();
  [capped, plain] = (await insertApps(database.db, ['capped', 'plain'])) as [string, string];
  await database.db
    .insertInto('app_versions')
    .values({
      id: 'ver_capped',
      app_id: capped,
      version: '1.0.0',
      build: 1,
      digest: 'd',
      manifest: JSON.stringify({ limits: { dailyTokens: 100, monthlyBudgetUsd: 2.5, computeMinutesPerMonth: 1 } }),
      size: 1,
      file_count: 0,
      sdk_used: '[]',
      skills: '[]',
      warnings: '[]',
      created_by: 'acc_meter_owner',
    })
    .execute();
  await database.db.updateTable('apps').set({ production_version_id: 'ver_capped' }).where('id', '=', capped).execute();
});
afterAll(() => database?.drop());

async function refusal(run: () => Promise<void>): Promise<DomainError> {
  const err = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe('periods', () => {
  it('are UTC months and days, with the next boundaries and the month before', () => {
    expect(periodOf('month', new Date('2026-12-31T23:59:59.999Z'))).toBe('2026-12');
    expect(periodOf('day', new Date('2027-01-01T00:00:00Z'))).toBe('2027-01-01');
    expect(nextMonthStart(new Date('2026-12-31T23:59:59.999Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextDayStart(new Date('2027-02-28T12:00:00Z')).toISOString()).toBe('2027-03-01T00:00:00.000Z');
    expect(previousMonth('2027-01')).toBe('2026-12');
    expect(microToDecimal(2_500_000)).toBe('2.500000');
    expect(microToDecimal(7)).toBe('0.000007');
  });
});

describe('model-call gate', () => {
  it('refuses once today’s tokens are used up, until tomorrow', async () => {
    await recordUsage(database.db, [{ appId: capped, meter: 'model.tokens', amount: 100, at: clock.now() }]);
    const err = await refusal(() => assertModelCallAllowed(database.db, clock, capped));
    expect([err.code, err.details?.limit, err.details?.resetsAt, err.retryAfterSeconds]).toEqual([
      'quota_exhausted',
      'dailyTokens',
      '2027-01-01T00:00:00.000Z',
      1800,
    ]);
    clock.set('2027-01-01T00:00:00Z');
    await assertModelCallAllowed(database.db, clock, capped);
    await assertModelCallAllowed(database.db, clock, plain);
  });

  it('refuses once the month’s priced cost reaches monthlyBudgetUsd, with details.spentUsd', async () => {
    clock.set('2027-01-15T00:00:00Z');
    await recordUsage(database.db, [{ appId: capped, meter: 'model.cost', amount: 2_499_999, at: clock.now() }]);
    await assertModelCallAllowed(database.db, clock, capped);
    await recordUsage(database.db, [{ appId: capped, meter: 'model.cost', amount: 1, at: clock.now() }]);
    const err = await refusal(() => assertModelCallAllowed(database.db, clock, capped));
    expect(err.code).toBe('quota_exhausted');
    expect(err.details).toMatchObject({
      limit: 'monthlyBudgetUsd',
      spentUsd: '2.500000',
      spentMicroUsd: 2_500_000,
      resetsAt: '2027-02-01T00:00:00.000Z',
    });
  });
});

describe('trigger gate and monthly reset', () => {
  it('stops triggers while the month’s compute is used up; the reset records the next month once, naming the app', async () => {
    clock.set('2027-01-20T00:00:00Z');
    await assertTriggerMayStart(database.db, clock, capped);
    await recordUsage(database.db, [{ appId: capped, meter: 'compute.workflow', amount: 60_000, at: clock.now() }]);
    expect((await refusal(() => assertTriggerMayStart(database.db, clock, capped))).code).toBe('quota_exhausted');
    await assertTriggerMayStart(database.db, clock, plain);

    // Missed on the 1st (service down) and run late: the same record, for the month it runs in.
    const late = new Date('2027-02-03T09:00:00Z');
    expect(await recordMonthlyReset(database.db, late)).toEqual({
      month: '2027-02',
      ranAt: late.toISOString(),
      reenabledAppIds: [capped],
      recorded: true,
    });
    expect(await recordMonthlyReset(database.db, new Date('2027-02-04T00:00:00Z'))).toMatchObject({
      ranAt: late.toISOString(),
      recorded: false,
    });
    clock.set('2027-02-01T00:00:00Z');
    await assertTriggerMayStart(database.db, clock, capped);
  });
});
