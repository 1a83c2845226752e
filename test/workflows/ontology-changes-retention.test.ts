import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { writeEdits } from '../../domain/ontology/write-edits.ts';
import { ontologyChangesRetentionSchedule } from '../../worker/ontology-changes-retention-schedule.ts';
import { ensureSchedule } from '../../worker/schedules.ts';
import { ONTOLOGY_CHANGES_RETENTION } from '../../workflows/contract.ts';
import type { TestDatabase } from '../support/database.ts';
import { define, insertCompanyWithDeveloper, SALES } from '../support/ontology.ts';
import { useWorkflowTestEnv } from '../support/workflow-env.ts';

// The retention of ontology changes on the embedded server with time skipping: the hourly schedule
// trims changes older than the kept hours and moves the trim mark (resume points below it reload).

const HOUR = 3_600_000;
let env: TestWorkflowEnvironment;
let database: TestDatabase;
useWorkflowTestEnv((started) => {
  ({ env, database } = started);
});

const kept = async () =>
  (await database.db.selectFrom('ontology_changes').select('primary_key').orderBy('seq').execute()).map((r) => r.primary_key);

describe('ontology changes retention', () => {
  it('creates its hourly schedule once, then trims changes past the kept hours and records how far', async () => {
    const acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
    await define(database.db, acme, SALES);
    const write = (id: string) =>
      database.db.transaction().execute((trx) =>
        writeEdits(trx, {
          companyId: acme.companyId,
          accountId: null,
          operationId: `op-${id}`,
          actionTypeRid: null,
          edits: [{ type: 'create', objectType: 'sales.Customer', properties: { id } }],
        }),
      );
    const old = await write('old');
    await write('recent');
    const now = await env.currentTimeMs();
    await database.db
      .updateTable('ontology_changes')
      .set({ at: new Date(now - (ONTOLOGY_CHANGES_RETENTION.keepHours + 1) * HOUR) })
      .where('primary_key', '=', 'old')
      .execute();
    await database.db
      .updateTable('ontology_changes')
      .set({ at: new Date(now) })
      .where('primary_key', '=', 'recent')
      .execute();

    expect(await ensureSchedule(env.client, ontologyChangesRetentionSchedule)).toBe('created');
    expect(await ensureSchedule(env.client, ontologyChangesRetentionSchedule)).toBe('existing');
    await env.sleep('61m');
    for (let i = 0; i < 200 && (await kept()).includes('old'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await kept()).toEqual(['recent']);
    const mark = await database.db.selectFrom('ontology_changes_trimmed').select('through_seq').executeTakeFirstOrThrow();
    expect(Number(mark.through_seq)).toBe(old.seq!.to);
  });
});
