import { type BeginRunInput, type BegunRun, beginRun } from './begin-run.ts';
import { finishRun } from './finish-run.ts';
import type { StepDeps, StepResult } from './run-step.ts';
import { runSteps } from './run-steps.ts';

export interface BegunWithSteps {
  begun: BegunRun;
  /** The outcomes of the run's leading `use` and `compute` steps without a lane, in order (up to a failed one). */
  results: StepResult[];
  /** Whether the run is closed: every step ran, or one failed. */
  closed: boolean;
}

/**
 * beginRun, then the run's leading unlaned `use` and `compute` steps (runSteps), then finishRun when
 * they were all of its steps or one failed: a run of such steps is one local activity, where it was
 * one per step and two for its record (each a workflow activation on the worker's one workflow
 * thread). What is left (laned, model and notify steps) the workflow runs as before. Safe to run
 * again: the run is begun once per workflow id, steps record themselves over their earlier record,
 * and a closed run stays as it is. The close's time is the workflow's time at the start plus the
 * time the steps took.
 */
export async function beginRunWithSteps(deps: StepDeps, input: BeginRunInput): Promise<BegunWithSteps> {
  const started = performance.now();
  const begun = await beginRun(deps.db, input);
  if (begun.skipped) return { begun, results: [], closed: false };
  const end = begun.steps.findIndex((s) => s.lane !== undefined || (s.kind !== 'use' && s.kind !== 'compute'));
  const leading = end === -1 ? begun.steps : begun.steps.slice(0, end);
  const results = await runSteps(deps, { runId: begun.runId, steps: leading, scope: { ...begun.scope, steps: {} }, at: input.at });
  const failed = results.findIndex((r) => r.status === 'failed');
  if (failed === -1 && leading.length < begun.steps.length) return { begun, results, closed: false };
  const output = Object.fromEntries(results.flatMap((r, i) => (r.status === 'failed' ? [] : [[leading[i]!.id, r.output]])));
  await finishRun(deps.db, {
    runId: begun.runId,
    status: failed === -1 ? 'succeeded' : 'failed',
    output,
    // As the workflow words a failed step (workflows/app-workflows/run.ts).
    error: failed === -1 ? undefined : `${leading[failed]!.id}: ${results[failed]!.error ?? 'failed'}`,
    at: new Date(Date.parse(input.at) + Math.round(performance.now() - started)).toISOString(),
  });
  return { begun, results, closed: true };
}
