import type { WorkflowStep } from '../../schemas/manifest/index.ts';
import type { EvaluationUsage } from './evaluation-threads.ts';
import type { Scope } from './expression.ts';
import { type RunStepInput, runStep, type StepDeps, type StepResult } from './run-step.ts';

export interface RunStepsInput extends Omit<RunStepInput, 'step'> {
  /** Steps that run one after another, each seeing the outputs of those before it. */
  steps: WorkflowStep[];
}

/**
 * Consecutive steps in one call (runStep each), as the workflow would run them one by one: each
 * step's scope has the earlier outputs, and the run's evaluation budget counts what they used. Stops
 * after the first failed step; a thrown error (for the retry) runs the whole list again, and each
 * step records itself again over its earlier record.
 */
export async function runSteps(deps: StepDeps, input: RunStepsInput): Promise<StepResult[]> {
  const outputs = { ...((input.scope.steps as Record<string, unknown> | undefined) ?? {}) };
  const evaluated: EvaluationUsage = { steps: input.evaluated?.steps ?? 0, outputBytes: input.evaluated?.outputBytes ?? 0 };
  const results: StepResult[] = [];
  for (const step of input.steps) {
    const scope: Scope = { ...input.scope, steps: { ...outputs } };
    const result = await runStep(deps, { runId: input.runId, step, scope, at: input.at, evaluated: { ...evaluated } });
    results.push(result);
    if (result.status === 'failed') break;
    evaluated.steps += result.evaluated?.steps ?? 0;
    evaluated.outputBytes += result.evaluated?.outputBytes ?? 0;
    outputs[step.id] = result.output;
  }
  return results;
}
