import { ZodError } from 'zod';
import type { WorkflowStep } from '../../schemas/manifest/index.ts';
import type { Db } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { assertModelCallAllowed, type UsageMeter } from '../usage/index.ts';
import type { StepEvaluation } from './evaluate-step.ts';
import { type EvaluationUsage, evaluateStepOffThread, stepLimits } from './evaluation-threads.ts';
import { ExpressionError, type Scope } from './expression.ts';
import type { ModelProvider } from './model-provider.ts';
import { findRun, recordStep, type StepRecord } from './runs.ts';
import { useCapability } from './use-capability.ts';

export interface StepDeps {
  db: Db;
  models: ModelProvider;
  meter: UsageMeter;
  /** Aborted when the activity is cancelled (a worker shutting down): long calls stop. */
  signal?: AbortSignal | undefined;
}

export interface RunStepInput {
  runId: string;
  step: WorkflowStep;
  /** `steps` (earlier outputs), `input`, `trigger`, `run`. */
  scope: Scope;
  /** The workflow's time (ISO), for metering periods and quota checks. */
  at: string;
  /** What the run's earlier steps counted against its evaluation budget (absent: nothing yet). */
  evaluated?: EvaluationUsage | undefined;
}

export interface StepResult {
  status: StepRecord['status'];
  output: unknown;
  error?: string | undefined;
  /** What this step's expressions counted, for the run's budget. */
  evaluated?: EvaluationUsage | undefined;
}

/** Failures that no retry changes: the manifest's logic (or a stored one the schema now refuses) or a refused quota. */
export function isPermanent(err: unknown): boolean {
  return err instanceof ExpressionError || err instanceof DomainError || err instanceof ZodError;
}

/**
 * One `use`, `compute` or `model` step: its `when` decides whether it runs; its output, status
 * and duration are recorded on the run (and sent to watchers). A permanent failure is recorded
 * and returned; anything else (database, provider outage) is thrown for the activity's retry.
 */
export async function runStep(deps: StepDeps, input: RunStepInput): Promise<StepResult> {
  const { step, scope } = input;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const record = async (result: StepResult) => {
    const durationMs = Math.round(performance.now() - started);
    await recordStep(deps.db, input.runId, { id: step.id, kind: step.kind, startedAt, durationMs, ...result });
    return result;
  };
  try {
    const { evaluation, used } = await evaluateStepOffThread(step, scope, stepLimits(input.evaluated));
    if (!evaluation.run) return { ...(await record({ status: 'skipped', output: null })), evaluated: used };
    const output = await execute(deps, input, evaluation);
    return { ...(await record({ status: 'succeeded', output })), evaluated: used };
  } catch (err) {
    if (!isPermanent(err)) throw err;
    return record({ status: 'failed', output: null, error: (err as Error).message });
  }
}

/** The step's I/O, with the values its expressions gave (evaluated off the event loop). */
async function execute(
  deps: StepDeps,
  { runId, step, at }: RunStepInput,
  evaluation: Extract<StepEvaluation, { run: true }>,
): Promise<unknown> {
  switch (evaluation.kind) {
    case 'use':
      return useCapability(deps.db, runId, (step as { capability: string }).capability, evaluation.input);
    case 'compute':
      return evaluation.output;
    case 'model': {
      if (step.kind !== 'model') throw new DomainError('conflict', `step ${step.id} is not a model step`);
      const run = await findRun(deps.db, runId);
      if (!run) throw new DomainError('conflict', `run ${runId} is gone`);
      const when = new Date(at);
      await assertModelCallAllowed(deps.db, { now: () => when }, run.app_id);
      const started = performance.now();
      const answer = await deps.models.analyze(
        {
          model: step.model,
          prompt: step.prompt,
          input: evaluation.input,
          fields: step.fields,
        },
        deps.signal,
      );
      await deps.meter.record([
        { appId: run.app_id, meter: 'model.tokens', amount: answer.tokens, at: when },
        { appId: run.app_id, meter: 'model.cost', amount: answer.costMicroUsd, at: when },
        { appId: run.app_id, meter: 'compute.model', amount: Math.round(performance.now() - started), at: when },
      ]);
      return answer.fields;
    }
    default:
      throw new DomainError('conflict', 'notify steps run through the notification activities');
  }
}
