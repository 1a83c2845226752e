import type { Db } from '../db/index.ts';
import { redactForbidden } from './forbidden-data.ts';
import { closeRun, saveStep, stepOf } from './repository.ts';
import type { RunContext } from './run-step.ts';

/** The last step of every run: completed, or failed with the step that gave up and its error. */
export async function finishRun(
  db: Db,
  run: RunContext,
  outcome: { status: 'completed' } | { status: 'failed'; step: string; error: string },
) {
  if (outcome.status === 'completed') return closeRun(db, run.runId, 'completed', null);
  const error = redactForbidden(outcome.error);
  const step = await stepOf(db, run.runId, outcome.step);
  if (step) await saveStep(db, run.runId, { ...step, status: 'failed', lastError: error, at: new Date().toISOString() });
  await closeRun(db, run.runId, 'failed', `${outcome.step}: ${error}`);
}
