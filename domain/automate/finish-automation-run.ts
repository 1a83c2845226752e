import type { EffectOutcome } from '../../schemas/automate.ts';
import type { Db } from '../db/index.ts';
import { recordEffect } from './run-automation-effect.ts';

/** An effect whose attempts all failed (the last error): recorded as FAILED unless it was recorded already. */
export async function recordFailedEffect(db: Db, runId: string, outcome: EffectOutcome): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const run = await trx.selectFrom('automation_runs').select('effects').where('id', '=', runId).forUpdate().executeTakeFirst();
    if (!run || (run.effects as EffectOutcome[]).some((e) => e.index === outcome.index)) return;
    await recordEffect(trx, runId, outcome);
  });
}

/** The run ends SUCCEEDED, or FAILED with its first failed effect's error. */
export async function finishAutomationRun(db: Db, runId: string, at: string): Promise<void> {
  const run = await db.selectFrom('automation_runs').select('effects').where('id', '=', runId).executeTakeFirst();
  if (!run) return;
  const failed = (run.effects as EffectOutcome[]).find((e) => e.status === 'FAILED');
  await db
    .updateTable('automation_runs')
    .set({ status: failed ? 'FAILED' : 'SUCCEEDED', error: failed?.error ?? null, finished_at: new Date(at) })
    .where('id', '=', runId)
    .where('status', '=', 'RUNNING')
    .execute();
}
