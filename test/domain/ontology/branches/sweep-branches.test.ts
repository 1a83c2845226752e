import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBranch } from '../../../../domain/ontology/branches/create-branch.ts';
import { sweepBranches } from '../../../../domain/ontology/branches/sweep-branches.ts';
import { writeToBranch } from '../../../../domain/ontology/branches/write-to-branch.ts';
import { TestClock } from '../../../support/clock.ts';
import { createTestDatabase, type TestDatabase } from '../../../support/database.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture, SALES } from '../../../support/ontology.ts';

// Branch lifetime with a set clock (spec "Branches"): INACTIVE after 35 days without activity,
// deleted 7 days later; activity starts the 35 days over.

const DAY = 86_400_000;
const T0 = new Date('2026-01-01T00:00:00Z');
const at = (days: number) => new Date(T0.getTime() + days * DAY);
let database: TestDatabase;
let acme: OntologyFixture;
const clock = new TestClock(T0);

beforeAll(async () => {
  database = await createTestDatabase();
  acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
  await define(database.db, acme, SALES);
});
afterAll(() => database.drop());

const status = async (name: string) =>
  (await database.db.selectFrom('ontology_branches').select(['status', 'inactive_since']).where('name', '=', name).executeTakeFirst()) ??
  null;

describe('sweepBranches', () => {
  it('makes a branch INACTIVE after 35 idle days and deletes it 7 days later', async () => {
    clock.set(T0);
    await createBranch({ db: database.db, clock }, acme.developer, acme.cellId, 'idle');
    expect(await sweepBranches(database.db, at(34.9))).toEqual({ inactivated: 0, deleted: 0 });
    expect((await status('idle'))?.status).toBe('ACTIVE');
    expect(await sweepBranches(database.db, at(35))).toEqual({ inactivated: 1, deleted: 0 });
    expect(await status('idle')).toEqual({ status: 'INACTIVE', inactive_since: at(35) });
    expect(await sweepBranches(database.db, at(41.9))).toEqual({ inactivated: 0, deleted: 0 });
    expect(await sweepBranches(database.db, at(42))).toEqual({ inactivated: 0, deleted: 1 });
    expect(await status('idle')).toBeNull();
  });

  it('counts the 7 days from the end of the 35, even when the sweep comes late', async () => {
    clock.set(T0);
    await createBranch({ db: database.db, clock }, acme.developer, acme.cellId, 'late');
    await sweepBranches(database.db, at(40));
    expect(await status('late')).toEqual({ status: 'INACTIVE', inactive_since: at(35) });
    await sweepBranches(database.db, at(42));
    expect(await status('late')).toBeNull();
  });

  it('starts the 35 days over on activity, also for an INACTIVE branch', async () => {
    clock.set(T0);
    await createBranch({ db: database.db, clock }, acme.developer, acme.cellId, 'busy');
    clock.set(at(30));
    await writeToBranch({ db: database.db, clock }, acme.developer, acme.cellId, 'busy', 'objectTypes', SALES);
    await sweepBranches(database.db, at(40));
    expect((await status('busy'))?.status).toBe('ACTIVE');
    await sweepBranches(database.db, at(65));
    expect((await status('busy'))?.status).toBe('INACTIVE');
    clock.set(at(66));
    await writeToBranch({ db: database.db, clock }, acme.developer, acme.cellId, 'busy', 'objectTypes', SALES);
    expect(await status('busy')).toEqual({ status: 'ACTIVE', inactive_since: null });
    await sweepBranches(database.db, at(100));
    expect((await status('busy'))?.status).toBe('ACTIVE');
  });
});
