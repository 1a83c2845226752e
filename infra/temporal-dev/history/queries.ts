// Queries, answered through legacy query tasks: a workflow task carrying `query` and the full
// history, which the worker answers with RespondQueryTaskCompleted.
import { QueryRejectCondition, QueryResultType, Status, TaskQueueKind } from '../common/enums.ts';
import { invalidArgument, notFound } from '../common/errors.ts';
import type { Msg } from '../common/proto.ts';
import { encodeToken, type TaskToken } from '../common/tokens.ts';
import type { TaskQueues } from '../matching/task-queues.ts';
import type { History } from './event-history.ts';

interface PendingQuery {
  id: number;
  query: Msg;
  dispatched: boolean;
  resolve(response: Msg): void;
  reject(err: Error): void;
}

let querySeq = 1;

/** What queries need of their run (workflow-execution.ts implements it). */
export interface QueryHost {
  readonly ns: { readonly workflowTasks: TaskQueues<Msg> };
  /** The queue key of the run's normal task queue for the worker version its workflow tasks go to. */
  readonly queryQueueKey: string;
  readonly options: { readonly taskQueue: string; readonly workflowType: Msg };
  readonly status: number;
  readonly isOpen: boolean;
  readonly ref: { workflowId: string; runId: string };
  readonly history: History;
  readonly previousStartedEventId: number;
  readonly hasOutstandingWorkflowTask: boolean;
  token(kind: TaskToken['kind'], id: number, attempt: number): TaskToken;
}

export class Queries {
  private readonly exec: QueryHost;
  private readonly pending = new Map<number, PendingQuery>();

  constructor(exec: QueryHost) {
    this.exec = exec;
  }

  /** QueryWorkflow: resolves with the worker's answer (or the rejection the condition asks for). */
  query(request: Msg, signal: AbortSignal): Promise<Msg> {
    const exec = this.exec;
    const condition = request.queryRejectCondition ?? 0;
    if (
      (condition === QueryRejectCondition.NOT_OPEN && !exec.isOpen) ||
      (condition === QueryRejectCondition.NOT_COMPLETED_CLEANLY && !exec.isOpen && exec.status !== Status.COMPLETED)
    ) {
      return Promise.resolve({ queryRejected: { status: exec.status } });
    }
    if (!request.query?.queryType) return Promise.reject(invalidArgument('QueryType is not set on request.'));
    return new Promise<Msg>((resolve, reject) => {
      const id = querySeq++;
      const abort = () => {
        this.pending.delete(id);
        reject(new Error('query cancelled'));
      };
      signal.addEventListener('abort', abort, { once: true });
      const settle =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          signal.removeEventListener('abort', abort);
          this.pending.delete(id);
          f(v);
        };
      this.pending.set(id, { id, query: request.query, dispatched: false, resolve: settle(resolve), reject: settle(reject) });
      this.dispatch();
    });
  }

  /**
   * Sends waiting queries once no workflow task is outstanding, so a query never observes a
   * half-applied task (queries during a running task wait for it to resolve).
   */
  dispatch(): void {
    const exec = this.exec;
    if (exec.hasOutstandingWorkflowTask) return;
    for (const q of this.pending.values()) {
      if (q.dispatched) continue;
      q.dispatched = true;
      // A versioned run's query goes to its version's pollers, as Temporal's matching routes it.
      exec.ns.workflowTasks.add(exec.queryQueueKey, {
        start: () => (this.pending.has(q.id) ? this.task(q) : undefined),
      });
    }
  }

  private task(q: PendingQuery): Msg {
    const exec = this.exec;
    return {
      taskToken: encodeToken(exec.token('qt', q.id, 0)),
      workflowExecution: exec.ref,
      workflowType: exec.options.workflowType,
      previousStartedEventId: exec.previousStartedEventId,
      startedEventId: exec.previousStartedEventId,
      history: { events: [...exec.history.events] },
      query: q.query,
      workflowExecutionTaskQueue: { name: exec.options.taskQueue, kind: TaskQueueKind.NORMAL },
    };
  }

  /** RespondQueryTaskCompleted. A failed query reaches the caller as INVALID_ARGUMENT, like Temporal's QueryFailed. */
  answer(id: number, result: Msg): void {
    const q = this.pending.get(id);
    if (!q) throw notFound('query task not found, or already expired');
    if (result.resultType === QueryResultType.ANSWERED) q.resolve({ queryResult: result.answer });
    else q.reject(invalidArgument(result.errorMessage || result.failure?.message || 'query failed'));
  }
}
