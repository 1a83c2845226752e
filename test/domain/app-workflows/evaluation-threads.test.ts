import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type EvaluationAnswer,
  type EvaluationJob,
  evaluateStepOffThread,
  expressionThreads,
  RUN_EVALUATION_LIMITS,
  resolveValuesOffThread,
  stepLimits,
} from '../../../domain/app-workflows/evaluation-threads.ts';
import { BudgetExceededError, EVALUATION_LIMITS, EvaluationBudget, ExpressionError } from '../../../domain/app-workflows/expression.ts';
import { DomainError } from '../../../domain/errors.ts';
import { WorkerPool } from '../../../domain/threads/worker-pool.ts';
import type { WorkflowStep } from '../../../schemas/manifest/index.ts';

// A step's expressions are evaluated on the expression threads under one budget; the event loop
// only sends the job and receives the values (or the error, with its class).

const list = Array.from({ length: 35 }, (_, i) => ({ n: i }));
const fiveDeep = '=len(map(steps.l, map(steps.l, map(steps.l, map(steps.l, map(steps.l, item.n))))))';
const perRow = (field: string): WorkflowStep => ({ id: 'x', kind: 'compute', op: 'per-row', from: '=steps.l', fields: { v: field } });

afterEach(() => vi.restoreAllMocks());

describe('evaluateStepOffThread', () => {
  it('evaluates a compute step on a thread and answers its rows and what it counted', async () => {
    const { evaluation, used } = await evaluateStepOffThread(perRow('=row.n * 2'), { steps: { l: list.slice(0, 3) } });
    expect(evaluation).toEqual({
      run: true,
      kind: 'compute',
      output: [
        { n: 0, v: 0 },
        { n: 1, v: 2 },
        { n: 2, v: 4 },
      ],
    });
    expect(used.steps).toBeGreaterThan(0);
    expect(used.outputBytes).toBeGreaterThan(0);
  });

  it('five nested maps over a 35-item step output in a compute step: BudgetExceededError from the thread, none of the work on the event loop', async () => {
    const spend = vi.spyOn(EvaluationBudget.prototype, 'spend');
    const run = vi.spyOn(expressionThreads, 'run');
    await expect(evaluateStepOffThread(perRow(fiveDeep), { steps: { l: list } })).rejects.toThrow(BudgetExceededError);
    await expect(evaluateStepOffThread(perRow(fiveDeep), { steps: { l: list } })).rejects.toThrow(/evaluation budget exceeded/);
    expect(run).toHaveBeenCalledTimes(2);
    // The thread has a module (and a budget class) of its own: this thread counted nothing.
    expect(spend).not.toHaveBeenCalled();
  });

  it('keeps the class of the thread’s failures: ExpressionError, DomainError', async () => {
    await expect(evaluateStepOffThread(perRow('=row.n * "a"'), { steps: { l: list } })).rejects.toThrow(ExpressionError);
    const notRows: WorkflowStep = { id: 'x', kind: 'compute', op: 'summarize', from: '=1', groupBy: [], measures: { c: { fn: 'count' } } };
    await expect(evaluateStepOffThread(notRows, {})).rejects.toMatchObject({ constructor: DomainError, code: 'invalid_payload' });
  });

  it('bounds a join whose matches multiply its sides by the output budget', async () => {
    const side = Array.from({ length: 2000 }, (_, i) => ({ k: 1, i }));
    const join: WorkflowStep = {
      id: 'j',
      kind: 'compute',
      op: 'join',
      left: '=steps.a',
      right: '=steps.b',
      on: { left: 'k', right: 'k' },
      type: 'inner',
    };
    await expect(evaluateStepOffThread(join, { steps: { a: side, b: side } })).rejects.toThrow(/output larger than/);
  });

  it('needs no thread for a step without expressions', async () => {
    const run = vi.spyOn(expressionThreads, 'run');
    const use: WorkflowStep = { id: 'p', kind: 'use', capability: 'platform.accounts', input: { role: 'member' } };
    expect((await evaluateStepOffThread(use, {})).evaluation).toEqual({ run: true, kind: 'use', input: { role: 'member' } });
    expect(run).not.toHaveBeenCalled();
  });

  it('makes a thread past its time limit a budget overrun', async () => {
    const silent = new WorkerPool<EvaluationJob, EvaluationAnswer>({
      script: new URL('./fixtures/silent-worker.ts', import.meta.url),
      size: 1,
      timeLimitMs: 200,
    });
    await expect(resolveValuesOffThread(['=1'], {}, silent)).rejects.toThrow(/evaluation budget exceeded: it ran longer than 200 ms/);
  });
});

describe('the run’s budget', () => {
  it('gives each step its own limits until the run’s are nearly spent, then what is left, saying so', () => {
    expect(stepLimits(undefined)).toBe(EVALUATION_LIMITS);
    expect(stepLimits({ steps: 3_000_000, outputBytes: 1000 })).toBe(EVALUATION_LIMITS);
    const late = stepLimits({ steps: RUN_EVALUATION_LIMITS.steps - 10, outputBytes: 0 });
    expect(late).toMatchObject({ steps: 10, outputBytes: EVALUATION_LIMITS.outputBytes });
    expect(stepLimits({ steps: RUN_EVALUATION_LIMITS.steps + 5, outputBytes: 0 }).steps).toBe(0);
  });

  it('fails a step of a run that has spent its budget with a message naming the run’s', async () => {
    const spent = stepLimits({ steps: RUN_EVALUATION_LIMITS.steps - 2, outputBytes: 0 });
    await expect(evaluateStepOffThread(perRow('=row.n + 1'), { steps: { l: list } }, spent)).rejects.toThrow(
      /evaluation budget exceeded: more than 2 steps, what is left of the run's/,
    );
  });
});
