import type { Db, ProvisioningStepRecord } from '../db/index.ts';
import { redactForbidden } from './forbidden-data.ts';
import { saveStep, stepOf } from './repository.ts';

/** Which Temporal run and attempt an activity belongs to (the adapter reads it from the activity context). */
export interface RunContext {
  runId: string;
  workflowId: string;
  attempt: number;
}

export type Changes = ProvisioningStepRecord['changes'];

/**
 * Runs one step of a run and records it: running with its attempt number, then completed with
 * what it changed, or retrying with the (redacted) error and what it had changed before it
 * failed. `work` pushes each change as it makes it. The record is written at the end of every
 * attempt, so provisioning-status is right even after a crash.
 */
export async function runStep<T>(db: Db, run: RunContext, name: string, work: (changes: Changes) => Promise<T>): Promise<T> {
  const previous = await stepOf(db, run.runId, name);
  const record = (status: ProvisioningStepRecord['status'], lastError: string | null, changes: Changes = []) =>
    saveStep(db, run.runId, { name, status, attempts: run.attempt, lastError, changes, at: new Date().toISOString() });
  await record('running', previous?.lastError ?? null);
  const changes: Changes = [];
  try {
    const result = await work(changes);
    await record('completed', previous?.lastError ?? null, changes);
    return result;
  } catch (err) {
    await record('retrying', redactForbidden(err instanceof Error ? err.message : String(err)), changes);
    throw err;
  }
}
