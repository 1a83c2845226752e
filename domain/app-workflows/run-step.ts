import { ZodError } from 'zod';
import type { WorkflowStep } from '../../schemas/manifest/index.ts';
import type { Db } from '../db/database.ts';
import { DomainError } from '../errors.ts';
import { assertModelCallAllowed } from '../usage/check-quota.ts';
import type { UsageMeter } from '../usage/usage-meter.ts';
import { runCompute } from './compute.ts';
import { ExpressionError, evaluateExpression, isTruthy, type Scope } from './expression.ts';
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
}

export interface StepResult {
  status: StepRecord['status'];
  output: unknown;
  error?: string | undefined;
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
    await deps.db
      .transaction()
      .execute((trx) => recordStep(trx, input.runId, { id: step.id, kind: step.kind, startedAt, durationMs, ...result }));
    return result;
  };
  try {
    if (step.when !== undefined && !isTruthy(evaluateExpression(step.when, scope)))
      return await record({ status: 'skipped', output: null });
    const output = await execute(deps, input);
    return await record({ status: 'succeeded', output });
  } catch (err) {
    if (!isPermanent(err)) throw err;
    return record({ status: 'failed', output: null, error: (err as Error).message });
  }
}

async function execute(deps: StepDeps, { runId, step, scope, at }: RunStepInput): Promise<unknown> {
  switch (step.kind) {
    case 'use':
      return useCapability(deps.db, runId, step, scope);
    case 'compute':
      return runCompute(step, scope);
    case 'model': {
      const run = await findRun(deps.db, runId);
      if (!run) throw new DomainError('conflict', `run ${runId} is gone`);
      const when = new Date(at);
      await assertModelCallAllowed(deps.db, { now: () => when }, run.app_id);
      const started = performance.now();
      const answer = await deps.models.analyze(
        {
          model: step.model,
          prompt: step.prompt,
          input: evaluateExpression(step.input, scope),
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
    case 'notify':
      throw new DomainError('conflict', 'notify steps run through the notification activities');
  }
}
