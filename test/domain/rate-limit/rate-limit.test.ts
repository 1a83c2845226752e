import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../../domain/errors.ts';
import { consume, consumeReserved, type Limit, windowOf } from '../../../domain/rate-limit/rate-limit.ts';
import { TestClock } from '../../support/clock.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';

// Fixed windows measured by the injected clock: every check happens at an exact instant, so
// nothing here waits or depends on where the wall clock is in its minute.

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const PER_MINUTE: Limit = { name: 'test-minute', max: 3, windowSeconds: 60 };
const never = () => 1; // no pruning unless a test asks for it

/** The error `consume` refused with, or undefined when it let the hit through. */
async function hit(limit: Limit, subject: string, clock: TestClock): Promise<DomainError | undefined> {
  try {
    await consume(database.db, limit, subject, clock, never);
    return undefined;
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
}

/** The test database with a count of the statements sent through it. */
function countingStatements() {
  let sent = 0;
  const counted = database.db.withPlugin({
    transformQuery: ({ node }) => {
      sent++;
      return node;
    },
    transformResult: async ({ result }) => result,
  });
  return { counted, statements: () => sent };
}

/** 'ok', or the code `consume` refused with. */
const answerOf = (consumed: Promise<void>) =>
  consumed.then(
    () => 'ok',
    (err: DomainError) => err.code,
  );

describe('windowOf', () => {
  it('aligns minute windows on hh:mm:00.000 and ends them one window later', () => {
    expect(windowOf(PER_MINUTE, new Date('2031-03-04T05:06:45.250Z'))).toEqual({
      start: new Date('2031-03-04T05:06:00.000Z'),
      end: new Date('2031-03-04T05:07:00.000Z'),
    });
    expect(windowOf({ ...PER_MINUTE, windowSeconds: 600 }, new Date('2031-03-04T05:19:59.999Z'))).toEqual({
      start: new Date('2031-03-04T05:10:00.000Z'),
      end: new Date('2031-03-04T05:20:00.000Z'),
    });
  });
});

describe('consume', () => {
  it('lets exactly max hits through in a window and refuses the next with rate_limited and the seconds left', async () => {
    const clock = new TestClock('2031-03-04T05:06:45.000Z');
    for (let i = 0; i < 3; i++) expect(await hit(PER_MINUTE, 'exact', clock)).toBeUndefined();
    const refused = await hit(PER_MINUTE, 'exact', clock);
    expect(refused?.code).toBe('rate_limited');
    expect(refused?.retryAfterSeconds).toBe(15);
    expect(refused?.details).toEqual({ retryAfterSeconds: 15 });
  });

  it('derives the window from the clock: the last millisecond of a minute is still refused, its next one starts afresh', async () => {
    const clock = new TestClock('2031-03-04T05:06:00.000Z');
    for (let i = 0; i < 3; i++) expect(await hit(PER_MINUTE, 'edge', clock)).toBeUndefined();
    clock.set('2031-03-04T05:06:59.999Z');
    const last = await hit(PER_MINUTE, 'edge', clock);
    expect(last?.code).toBe('rate_limited');
    expect(last?.retryAfterSeconds).toBe(1); // never 0: a client must wait at least a second
    clock.set('2031-03-04T05:07:00.000Z');
    for (let i = 0; i < 3; i++) expect(await hit(PER_MINUTE, 'edge', clock)).toBeUndefined();
    expect((await hit(PER_MINUTE, 'edge', clock))?.code).toBe('rate_limited');
  });

  it('refuses the rest of a window from memory once a bucket is past its limit, with the seconds left, then counts afresh', async () => {
    const clock = new TestClock('2031-03-04T06:00:10.000Z');
    for (let i = 0; i < 3; i++) await hit(PER_MINUTE, 'hammer', clock);
    expect((await hit(PER_MINUTE, 'hammer', clock))?.code).toBe('rate_limited');
    const row = () =>
      database.db
        .selectFrom('rate_limit_hits')
        .select(['hits', 'window_start'])
        .where('bucket', '=', 'test-minute:hammer')
        .executeTakeFirstOrThrow();
    expect(await row()).toEqual({ hits: 4, window_start: new Date('2031-03-04T06:00:00.000Z') });
    // Hammering: no more writes, and the wait does not change with it.
    for (let i = 0; i < 5; i++) {
      clock.advance({ seconds: 9 });
      expect((await hit(PER_MINUTE, 'hammer', clock))?.retryAfterSeconds).toBe(50 - 9 * (i + 1));
    }
    expect((await row()).hits).toBe(4);
    clock.set('2031-03-04T06:01:00.000Z');
    expect(await hit(PER_MINUTE, 'hammer', clock)).toBeUndefined();
  });

  it('keeps one budget per subject and per limit name', async () => {
    const clock = new TestClock('2031-03-04T07:00:30.000Z');
    for (let i = 0; i < 3; i++) await hit(PER_MINUTE, 'first', clock);
    expect((await hit(PER_MINUTE, 'first', clock))?.code).toBe('rate_limited');
    expect(await hit(PER_MINUTE, 'second', clock)).toBeUndefined();
    expect(await hit({ ...PER_MINUTE, name: 'other-family' }, 'first', clock)).toBeUndefined();
  });

  it('measures longer windows the same way (the 10-minute user-code window)', async () => {
    const tenMinutes: Limit = { name: 'test-ten', max: 2, windowSeconds: 600 };
    const clock = new TestClock('2031-03-04T08:03:00.000Z');
    await hit(tenMinutes, 'x', clock);
    clock.advance({ minutes: 6, seconds: 59 }); // 08:09:59, same window
    await hit(tenMinutes, 'x', clock);
    const refused = await hit(tenMinutes, 'x', clock);
    expect(refused?.retryAfterSeconds).toBe(1);
    clock.advance({ seconds: 1 }); // 08:10:00, a new window
    expect(await hit(tenMinutes, 'x', clock)).toBeUndefined();
  });

  it('counts 50 hits of one bucket sent at once exactly, in arrival order, with two statements instead of 50 (a flood holds one pool connection)', async () => {
    const { counted, statements } = countingStatements();
    const clock = new TestClock('2031-03-04T10:00:30.000Z');
    const flood: Limit = { name: 'test-flood', max: 20, windowSeconds: 60 };
    const answers = await Promise.all(Array.from({ length: 50 }, () => answerOf(consume(counted, flood, 'company', clock, never))));
    expect(answers).toEqual([...Array(20).fill('ok'), ...Array(30).fill('rate_limited')]);
    // The first hit alone, then the 49 that arrived while it was in flight.
    expect(statements()).toBe(2);
    const row = await database.db
      .selectFrom('rate_limit_hits')
      .select('hits')
      .where('bucket', '=', 'test-flood:company')
      .executeTakeFirstOrThrow();
    expect(row.hits).toBe(50);
    // The next hit is refused from memory: the bucket is past its limit until its window ends.
    expect(await consume(counted, flood, 'company', clock, never).catch((err: DomainError) => err.code)).toBe('rate_limited');
    expect(statements()).toBe(2);
  });

  it('counts 3,000 hits from 1,500 addresses sent at once exactly, with three statements instead of 3,000 (a flood from many addresses)', async () => {
    const { counted, statements } = countingStatements();
    const clock = new TestClock('2031-03-04T10:00:30.000Z');
    const perAddress: Limit = { name: 'test-addresses', max: 1, windowSeconds: 60 };
    const addresses = Array.from({ length: 1500 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    // Each address twice: its first hit is let through and its second refused, wherever it falls in a statement.
    const answers = await Promise.all(
      [...addresses, ...addresses].map((address) => answerOf(consume(counted, perAddress, address, clock, never))),
    );
    expect(answers).toEqual([...Array(1500).fill('ok'), ...Array(1500).fill('rate_limited')]);
    // The first hit alone, then the other 2,999 hits in statements of at most 2,000.
    expect(statements()).toBe(3);
    const rows = await database.db
      .selectFrom('rate_limit_hits')
      .select(['bucket', 'hits'])
      .where('bucket', 'like', 'test-addresses:%')
      .execute();
    expect(rows).toHaveLength(1500);
    expect(rows.every((r) => r.hits === 2)).toBe(true);
  });

  it('prunes windows older than a day when the dice say so, relative to the clock', async () => {
    const clock = new TestClock('2031-03-04T09:00:00.000Z');
    await consume(database.db, PER_MINUTE, 'old', clock, never);
    clock.advance({ minutes: 24 * 60 + 1 });
    await consume(database.db, PER_MINUTE, 'trigger', clock, () => 0);
    // Off the request path: the hit that drew the prune does not wait for it.
    const old = () => database.db.selectFrom('rate_limit_hits').select('bucket').where('bucket', '=', 'test-minute:old').execute();
    await expect.poll(old).toEqual([]);
    const kept = await database.db.selectFrom('rate_limit_hits').select('bucket').where('bucket', '=', 'test-minute:trigger').execute();
    expect(kept).toHaveLength(1);
  });
});

describe('consumeReserved', () => {
  const stored = async (bucket: string) =>
    (await database.db.selectFrom('rate_limit_hits').select('hits').where('bucket', '=', bucket).executeTakeFirstOrThrow()).hits;

  it('lets exactly max hits through in a window and refuses the next with rate_limited and the seconds left', async () => {
    const clock = new TestClock('2031-03-05T05:06:45.000Z');
    for (let i = 0; i < 3; i++) expect(await answerOf(consumeReserved(database.db, PER_MINUTE, 'exact', clock, never))).toBe('ok');
    const refused = await consumeReserved(database.db, PER_MINUTE, 'exact', clock, never).catch((err: DomainError) => err);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('rate_limited');
    expect((refused as DomainError).retryAfterSeconds).toBe(15);
    expect((refused as DomainError).details).toEqual({ retryAfterSeconds: 15 });
    clock.set('2031-03-05T05:07:00.000Z');
    expect(await answerOf(consumeReserved(database.db, PER_MINUTE, 'exact', clock, never))).toBe('ok');
  });

  it('reserves a quarter of what the window has left with each write and hands later hits those numbers without a statement', async () => {
    const { counted, statements } = countingStatements();
    const clock = new TestClock('2031-03-05T06:00:10.000Z');
    const roomy: Limit = { name: 'test-reserved', max: 1500, windowSeconds: 60 };
    await consumeReserved(counted, roomy, 'visitor', clock, never);
    // The hit and floor(1,499 / 4) = 374 numbers reserved.
    expect([statements(), await stored('test-reserved:visitor')]).toEqual([1, 375]);
    for (let i = 2; i <= 375; i++) await consumeReserved(counted, roomy, 'visitor', clock, never);
    expect(statements()).toBe(1);
    // The 376th: floor((1,500 - 375 - 1) / 4) = 281 more.
    await consumeReserved(counted, roomy, 'visitor', clock, never);
    expect([statements(), await stored('test-reserved:visitor')]).toEqual([2, 657]);
    // Under four left: each write is the hits alone.
    const tight: Limit = { name: 'test-reserved-tight', max: 4, windowSeconds: 60 };
    for (let i = 1; i <= 3; i++) await consumeReserved(counted, tight, 'visitor', clock, never);
    expect([statements(), await stored('test-reserved-tight:visitor')]).toEqual([5, 3]);
  });

  it('past 100,000 buckets in a window, writes a new bucket’s hits without a reserve', async () => {
    const clock = new TestClock('2031-03-05T06:30:10.000Z');
    const many: Limit = { name: 'test-reserved-many', max: 100, windowSeconds: 60 };
    await Promise.all(Array.from({ length: 100_000 }, (_, i) => consumeReserved(database.db, many, `a${i}`, clock, never)));
    // A bucket held: its hit and floor(99 / 4) = 24 numbers.
    expect(await stored('test-reserved-many:a0')).toBe(25);
    for (let i = 0; i < 3; i++) await consumeReserved(database.db, many, 'late', clock, never);
    expect(await stored('test-reserved-many:late')).toBe(3);
  });

  it('reserves a bucket’s next window in its window’s last 2 s, so that its first hit there writes nothing', async () => {
    const { counted, statements } = countingStatements();
    const clock = new TestClock('2031-03-05T09:00:57.000Z');
    const soon: Limit = { name: 'test-next', max: 100, windowSeconds: 60 };
    const storedAt = async (start: string) =>
      (
        await database.db
          .selectFrom('rate_limit_hits')
          .select('hits')
          .where('bucket', '=', 'test-next:visitor')
          .where('window_start', '=', new Date(start))
          .executeTakeFirst()
      )?.hits;
    await consumeReserved(counted, soon, 'visitor', clock, never);
    expect(statements()).toBe(1);
    expect(await storedAt('2031-03-05T09:01:00.000Z')).toBeUndefined();
    clock.set('2031-03-05T09:00:58.000Z');
    await consumeReserved(counted, soon, 'visitor', clock, never);
    // Written in the background: a quarter of 100, no hit.
    await expect.poll(() => storedAt('2031-03-05T09:01:00.000Z')).toBe(25);
    expect(statements()).toBe(2);
    // Held: a later call of the same window writes it no more.
    await consumeReserved(counted, soon, 'visitor', clock, never);
    clock.set('2031-03-05T09:01:00.000Z');
    const answers = await Promise.all(Array.from({ length: 25 }, () => answerOf(consumeReserved(counted, soon, 'visitor', clock, never))));
    expect(answers).toEqual(Array(25).fill('ok'));
    expect(statements()).toBe(2);
  });

  it('never lets more than max through across processes, and refuses none before max less the other’s reserve', async () => {
    // Two handles on one database stand for two processes: each holds its own reserves.
    const [first, second] = [countingStatements().counted, countingStatements().counted];
    const clock = new TestClock('2031-03-05T07:00:20.000Z');
    const shared: Limit = { name: 'test-shared', max: 200, windowSeconds: 60 };
    const answers: string[] = [];
    // Bursts from both at once, as a visitor's calls spread over two API processes.
    for (let burst = 0; burst < 20; burst++) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 20 }, (_, i) => answerOf(consumeReserved(i % 2 ? first : second, shared, 'visitor', clock, never))),
        )),
      );
    }
    const ok = answers.filter((a) => a === 'ok').length;
    expect(answers.filter((a) => a !== 'ok' && a !== 'rate_limited')).toEqual([]);
    expect(ok).toBeLessThanOrEqual(200);
    // A reserve is at most a quarter of what the window had left when it was written.
    expect(ok).toBeGreaterThanOrEqual(200 - 200 / 4);
    // Each hit let through holds a number of the stored count of its own; the count may also hold refused hits and unused reserves.
    expect(await stored('test-shared:visitor')).toBeGreaterThan(ok);
  });

  it('counts hits that wait for a write together: a flood of one bucket is refused past max with few statements', async () => {
    const { counted, statements } = countingStatements();
    const clock = new TestClock('2031-03-05T08:00:30.000Z');
    const flood: Limit = { name: 'test-reserved-flood', max: 20, windowSeconds: 60 };
    const answers = await Promise.all(Array.from({ length: 50 }, () => answerOf(consumeReserved(counted, flood, 'company', clock, never))));
    expect(answers).toEqual([...Array(20).fill('ok'), ...Array(30).fill('rate_limited')]);
    expect(statements()).toBe(2);
    // Past its limit, the window is refused from memory.
    expect(await answerOf(consumeReserved(counted, flood, 'company', clock, never))).toBe('rate_limited');
    expect(statements()).toBe(2);
  });
});
