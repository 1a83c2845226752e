// Expressions are evaluated on worker threads, never on the event loop that answers requests
// (in `npm start` the Temporal worker's activities share it too): each job has the evaluation
// budget (expression.ts) and, behind it, the pool's time limit.

import type { ErrorCode } from '../../schemas/errors.ts';
import type { WorkflowStep } from '../../schemas/manifest/index.ts';
import { DomainError } from '../errors.ts';
import { SPARE_CORES, WorkerPool, WorkerTimeoutError } from '../threads/index.ts';
import { evaluateStep, expressionsOf, type StepEvaluation } from './evaluate-step.ts';
import {
  BudgetExceededError,
  EVALUATION_LIMITS,
  EvaluationBudget,
  type EvaluationLimits,
  ExpressionError,
  type Scope,
} from './expression.ts';

export type EvaluationJob =
  | { kind: 'step'; step: WorkflowStep; scope: Scope; limits: EvaluationLimits }
  /** Literal strings and `=` expressions, all under one budget. */
  | { kind: 'values'; values: string[]; scope: Scope; limits: EvaluationLimits };

/** What an evaluation counted against its budget. */
export interface EvaluationUsage {
  steps: number;
  outputBytes: number;
}

export type EvaluationFailure =
  | { name: 'ExpressionError' | 'BudgetExceededError'; reason: string; position: number | undefined }
  | { name: 'DomainError'; code: ErrorCode; message: string; details: Record<string, unknown> | undefined }
  | { name: 'Error'; message: string };

export type EvaluationAnswer = { ok: true; value: unknown; used: EvaluationUsage } | { ok: false; failure: EvaluationFailure };

/** All the expressions of one run together (each step also has EVALUATION_LIMITS of its own). */
export const RUN_EVALUATION_LIMITS: EvaluationLimits = { steps: 10_000_000, outputBytes: 16 * 1024 * 1024 };

/** A step's budget: its own limits, or what the run has left when that is less. */
export function stepLimits(evaluated: EvaluationUsage | undefined): EvaluationLimits {
  const steps = RUN_EVALUATION_LIMITS.steps - (evaluated?.steps ?? 0);
  const outputBytes = RUN_EVALUATION_LIMITS.outputBytes - (evaluated?.outputBytes ?? 0);
  if (steps >= EVALUATION_LIMITS.steps && outputBytes >= EVALUATION_LIMITS.outputBytes) return EVALUATION_LIMITS;
  return {
    steps: Math.max(0, Math.min(steps, EVALUATION_LIMITS.steps)),
    outputBytes: Math.max(0, Math.min(outputBytes, EVALUATION_LIMITS.outputBytes)),
    of: `what is left of the run's (${RUN_EVALUATION_LIMITS.steps} steps, ${RUN_EVALUATION_LIMITS.outputBytes} bytes for all its steps)`,
  };
}

/** Far above what the budget allows (about 0.5 s of a busy machine): only a fault, never an expression, reaches it. */
const EVALUATION_TIME_LIMIT_MS = 10_000;

export const expressionThreads = new WorkerPool<EvaluationJob, EvaluationAnswer>({
  script: new URL('./evaluate-worker.ts', import.meta.url),
  size: SPARE_CORES,
  timeLimitMs: EVALUATION_TIME_LIMIT_MS,
});

/** The thread's failure as the error it was (the permanent kinds keep their class). */
function errorOf(failure: EvaluationFailure): Error {
  switch (failure.name) {
    case 'ExpressionError':
      return new ExpressionError(failure.reason, failure.position);
    case 'BudgetExceededError':
      return new BudgetExceededError(failure.reason, failure.position);
    case 'DomainError':
      return new DomainError(failure.code, failure.message, { details: failure.details });
    case 'Error':
      return new Error(failure.message);
  }
}

async function onThread(job: EvaluationJob, pool: WorkerPool<EvaluationJob, EvaluationAnswer>) {
  let answer: EvaluationAnswer;
  try {
    answer = await pool.run(job);
  } catch (error) {
    if (error instanceof WorkerTimeoutError)
      throw new BudgetExceededError(`evaluation budget exceeded: it ran longer than ${pool.timeLimitMs} ms`);
    throw error;
  }
  if (!answer.ok) throw errorOf(answer.failure);
  return answer;
}

/**
 * evaluateStep on a thread, under `limits` for all the step's expressions. A step with no
 * expression at all has nothing to evaluate and is answered here.
 */
export async function evaluateStepOffThread(
  step: WorkflowStep,
  scope: Scope,
  limits: EvaluationLimits = EVALUATION_LIMITS,
  pool = expressionThreads,
): Promise<{ evaluation: StepEvaluation; used: EvaluationUsage }> {
  if (expressionsOf(step).length === 0)
    return { evaluation: evaluateStep(step, scope, new EvaluationBudget(limits)), used: { steps: 0, outputBytes: 0 } };
  const { value, used } = await onThread({ kind: 'step', step, scope, limits }, pool);
  return { evaluation: value as StepEvaluation, used };
}

/** resolveValue of each value on a thread, under one budget (values without `=` need no thread). */
export async function resolveValuesOffThread(values: string[], scope: Scope, pool = expressionThreads): Promise<unknown[]> {
  if (!values.some((v) => v.startsWith('='))) return values;
  const { value } = await onThread({ kind: 'values', values, scope, limits: EVALUATION_LIMITS }, pool);
  return value as unknown[];
}
