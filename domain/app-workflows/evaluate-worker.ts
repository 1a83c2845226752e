// Thread entry of the expression pool (evaluation-threads.ts): one job per message, answered
// with its value and what it counted, or its failure described (errors lose their class crossing threads).
import { parentPort } from 'node:worker_threads';
import { DomainError } from '../errors.ts';
import { evaluateStep } from './evaluate-step.ts';
import type { EvaluationAnswer, EvaluationFailure, EvaluationJob } from './evaluation-threads.ts';
import { BudgetExceededError, EvaluationBudget, ExpressionError, resolveValue } from './expression.ts';

function failure(error: unknown): EvaluationFailure {
  if (error instanceof ExpressionError)
    return {
      name: error instanceof BudgetExceededError ? 'BudgetExceededError' : 'ExpressionError',
      reason: error.reason,
      position: error.position,
    };
  if (error instanceof DomainError) return { name: 'DomainError', code: error.code, message: error.message, details: error.details };
  return { name: 'Error', message: error instanceof Error ? error.message : String(error) };
}

function answer(job: EvaluationJob): EvaluationAnswer {
  const budget = new EvaluationBudget(job.limits);
  try {
    const value =
      job.kind === 'step' ? evaluateStep(job.step, job.scope, budget) : job.values.map((v) => resolveValue(v, job.scope, budget));
    return { ok: true, value, used: { steps: budget.steps, outputBytes: budget.outputBytes } };
  } catch (error) {
    return { ok: false, failure: failure(error) };
  }
}

parentPort?.on('message', (job: EvaluationJob) => parentPort?.postMessage(answer(job)));
