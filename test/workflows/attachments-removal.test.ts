import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { uploadAttachment } from '../../domain/attachments/index.ts';
import { attachmentsRemovalSchedule } from '../../worker/attachments-removal-schedule.ts';
import { ensureSchedule, PRODUCT_SCHEDULES } from '../../worker/schedules.ts';
import { ATTACHMENTS_REMOVAL } from '../../workflows/contract.ts';
import type { TestDatabase } from '../support/database.ts';
import { insertCompanyWithDeveloper } from '../support/ontology.ts';
import { useWorkflowTestEnv } from '../support/workflow-env.ts';

// The removal of unused attachments on the embedded server with time skipping: the schedule
// starts the workflow every 10 minutes, and an attachment unused an hour after its upload is gone
// while a younger one stays.

const MINUTE = 60_000;
let env: TestWorkflowEnvironment;
let database: TestDatabase;
useWorkflowTestEnv((started) => {
  ({ env, database } = started);
});

describe('attachments removal', () => {
  it('is a product schedule; its run removes attachments unused for an hour and keeps younger ones', async () => {
    expect(PRODUCT_SCHEDULES).toContain(attachmentsRemovalSchedule);
    const acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
    const now = await env.currentTimeMs();
    const content = { companyId: acme.companyId, sha256: '0'.repeat(64), size: 1 };
    const at = (ms: number) => ({ db: database.db, clock: { now: () => new Date(ms) } });
    await uploadAttachment(at(now - 61 * MINUTE), acme.developer, { filename: 'old.txt' }, content);
    await uploadAttachment(at(now), acme.developer, { filename: 'young.txt' }, content);

    expect(await ensureSchedule(env.client, attachmentsRemovalSchedule)).toBe('created');
    const names = async () =>
      (await database.db.selectFrom('attachments').select('filename').orderBy('filename').execute()).map((r) => r.filename);
    expect(await names()).toEqual(['old.txt', 'young.txt']);
    await env.sleep('11m');
    for (let i = 0; i < 200 && (await names()).includes('old.txt'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await names()).toEqual(['young.txt']);
    await env.client.schedule.getHandle(ATTACHMENTS_REMOVAL.scheduleId).delete();
  });
});
