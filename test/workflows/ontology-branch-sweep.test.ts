import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { createBranch } from '../../domain/ontology/branches/create-branch.ts';
import { branchSweepSchedule } from '../../worker/branch-sweep-schedule.ts';
import { ensureSchedule } from '../../worker/schedules.ts';
import { BRANCH_SWEEP } from '../../workflows/contract.ts';
import type { TestDatabase } from '../support/database.ts';
import { define, insertCompanyWithDeveloper, SALES } from '../support/ontology.ts';
import { useWorkflowTestEnv } from '../support/workflow-env.ts';

// The branch sweep's schedule on the embedded server with time skipping: a day passes in no time,
// the schedule starts the sweep, and a branch idle past 35 days becomes INACTIVE.

const DAY = 86_400_000;
let env: TestWorkflowEnvironment;
let database: TestDatabase;
useWorkflowTestEnv((started) => {
  ({ env, database } = started);
});

describe('ontology branch sweep', () => {
  it('creates its schedule once; the daily run makes idle branches INACTIVE', async () => {
    const acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
    await define(database.db, acme, SALES);
    const now = await env.currentTimeMs();
    await createBranch({ db: database.db, clock: { now: () => new Date(now - 36 * DAY) } }, acme.developer, acme.cellId, 'idle');
    await createBranch({ db: database.db, clock: { now: () => new Date(now - DAY) } }, acme.developer, acme.cellId, 'fresh');

    expect(await ensureSchedule(env.client, branchSweepSchedule)).toBe('created');
    expect(await ensureSchedule(env.client, branchSweepSchedule)).toBe('existing');
    const described = await env.client.schedule.getHandle(BRANCH_SWEEP.scheduleId).describe();
    expect(described.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 4, end: 4, step: 1 }] });

    const statuses = async () =>
      (await database.db.selectFrom('ontology_branches').select(['name', 'status']).orderBy('name').execute()).map(
        (b) => `${b.name}:${b.status}`,
      );
    await env.sleep('25h');
    for (let i = 0; i < 200 && (await statuses()).includes('idle:ACTIVE'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await statuses()).toEqual(['fresh:ACTIVE', 'idle:INACTIVE']);
    await env.client.schedule.getHandle(BRANCH_SWEEP.scheduleId).delete();
  });
});
