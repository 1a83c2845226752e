// Workflow updates (the update protocol): requests ride on workflow tasks as protocol messages;
// the worker's acceptance and response come back as messages, ordered by ProtocolMessage commands.
// Rejected updates leave no events, accepted ones write UpdateAccepted and UpdateCompleted.
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { UpdateStage } from './enums.ts';
import { invalidArgument, notFound, requireField, ServiceError } from './errors.ts';
import { decodeMessage, encodeMessage, lookupType, type Msg } from './proto.ts';
import type { Execution } from './workflow-execution.ts';

const REQUEST_TYPE = 'temporal.api.update.v1.Request';
const ABORTED_BY_CLOSE = 'workflow update was aborted by closing workflow';

/** Temporal's outcome for an accepted update whose run closed before the update completed. */
const COMPLETED_WORKFLOW_FAILURE: Msg = {
  message: 'Workflow Update failed because the Workflow completed before the Update completed.',
  source: 'Server',
  applicationFailureInfo: { type: 'AcceptedUpdateCompletedWorkflow', nonRetryable: true },
};

/**
 * Checks an UpdateWorkflowExecution request as Temporal's frontend does (same messages) and fills
 * in a missing update id.
 */
export function validateUpdateRequest(req: Msg): void {
  requireField(req.workflowExecution, 'Execution');
  requireField(req.workflowExecution.workflowId, 'WorkflowId');
  const meta = req.request?.meta;
  if (!meta) throw invalidArgument('Update meta is not set on request.');
  meta.updateId ||= randomUUID();
  if (!req.request.input) throw invalidArgument('Update input is not set on request.');
  if (!req.request.input.name) throw invalidArgument('Update name is not set on request.');
  if (req.waitPolicy?.lifecycleStage === UpdateStage.ADMITTED) {
    throw new ServiceError(
      status.PERMISSION_DENIED,
      'UpdateWorkflowExecution issued asynchronously and waiting on update admitted is not supported.',
    );
  }
}

/** The error of an update that was admitted (not yet accepted) when its run closed. */
export function isAbortedByClose(err: unknown): boolean {
  return err instanceof ServiceError && err.code === status.NOT_FOUND && err.message === ABORTED_BY_CLOSE;
}

interface Waiter {
  stage: number;
  resolve(update: Update): void;
  reject(err: Error): void;
}

interface Update extends UpdateSnapshot {
  waiters: Waiter[];
}

/** An update as persistence.ts stores it, inside its run's state (waiting callers are not kept). */
export interface UpdateSnapshot {
  id: string;
  request: Msg;
  /**
   * admitted: not yet delivered; sent: in a running workflow task; then accepted / completed;
   * aborted: the run closed before the update was accepted (no outcome).
   */
  state: 'admitted' | 'sent' | 'accepted' | 'completed' | 'aborted';
  stage: number;
  outcome?: Msg;
  acceptedEventId?: number;
}

export class Updates {
  private readonly exec: Execution;
  private readonly updates = new Map<string, Update>();

  constructor(exec: Execution) {
    this.exec = exec;
  }

  snapshot(): UpdateSnapshot[] {
    return [...this.updates.values()].map(({ waiters: _, ...update }) => update);
  }

  restore(updates: UpdateSnapshot[]): void {
    for (const u of updates) this.updates.set(u.id, { ...u, waiters: [] });
  }

  /**
   * UpdateWorkflowExecution (validated by `validateUpdateRequest`): admits (or finds, by update id)
   * and waits for the requested stage.
   */
  async request(req: Msg, signal: AbortSignal): Promise<Msg> {
    const updateId: string = req.request.meta.updateId;
    if (!this.updates.has(updateId)) {
      if (!this.exec.isOpen) throw notFound('workflow execution already completed');
      this.admit(req.request);
      this.exec.ensureWorkflowTask();
    }
    return this.wait(updateId, req.waitPolicy?.lifecycleStage || UpdateStage.ACCEPTED, signal);
  }

  /**
   * Records a new update, to be delivered with the next workflow task that starts. Update-with-start
   * calls it before the run's first workflow task is scheduled, so that task carries it.
   */
  admit(request: Msg): void {
    const id: string = request.meta.updateId;
    this.updates.set(id, { id, request, state: 'admitted', stage: UpdateStage.ADMITTED, waiters: [] });
    this.exec.touch();
  }

  has(updateId: string): boolean {
    return this.updates.has(updateId);
  }

  /** The outcome of a completed update, if `updateId` names one. */
  outcome(updateId: string): Msg | undefined {
    const update = this.updates.get(updateId);
    return update?.state === 'completed' ? this.respond(update) : undefined;
  }

  /** Waits until the update reaches `stage` (or completes); answers as UpdateWorkflowExecution does. */
  async wait(updateId: string, stage: number, signal: AbortSignal): Promise<Msg> {
    return this.respond(await this.waitFor(this.updates.get(updateId)!, stage, signal));
  }

  /** PollWorkflowExecutionUpdate. */
  async poll(req: Msg, signal: AbortSignal): Promise<Msg> {
    const update = this.updates.get(req.updateRef?.updateId ?? '');
    if (!update) throw notFound(`update ${req.updateRef?.updateId} not found`);
    return this.respond(await this.waitFor(update, req.waitPolicy?.lifecycleStage || UpdateStage.ACCEPTED, signal));
  }

  private respond(update: Update): Msg {
    return {
      updateRef: { workflowExecution: this.exec.ref, updateId: update.id },
      outcome: update.outcome,
      stage: update.stage,
    };
  }

  private waitFor(update: Update, stage: number, signal: AbortSignal): Promise<Update> {
    if (update.state === 'aborted') return Promise.reject(notFound(ABORTED_BY_CLOSE));
    if (update.stage >= stage) return Promise.resolve(update);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { stage, resolve, reject };
      update.waiters.push(waiter);
      signal.addEventListener('abort', () => reject(new ServiceError(status.CANCELLED, 'update request cancelled')), { once: true });
    });
  }

  private advance(update: Update, stage: number): void {
    update.stage = stage;
    const ready = update.waiters.filter((w) => w.stage <= stage);
    update.waiters = update.waiters.filter((w) => w.stage > stage);
    for (const w of ready) w.resolve(update);
  }

  /** Updates not yet delivered, which make a workflow task necessary and block closing the run. */
  get hasUndelivered(): boolean {
    for (const u of this.updates.values()) if (u.state === 'admitted') return true;
    return false;
  }

  /** Request messages for the workflow task being started; unresolved ones are re-sent after a failed task. */
  messagesFor(startedEventId: number): Msg[] {
    const out: Msg[] = [];
    for (const u of this.updates.values()) {
      if (u.state !== 'admitted' && u.state !== 'sent') continue;
      u.state = 'sent';
      this.exec.touch();
      out.push({
        id: `${u.id}/request`,
        protocolInstanceId: u.id,
        // Temporal sequences update requests just before WorkflowTaskStarted.
        eventId: startedEventId - 1,
        body: { type_url: `type.googleapis.com/${REQUEST_TYPE}`, value: encodeMessage(lookupType(REQUEST_TYPE), u.request) },
      });
    }
    return out;
  }

  /** Applies one message of a task completion (acceptance, rejection or response). */
  apply(message: Msg): void {
    const update = this.updates.get(message.protocolInstanceId);
    const typeUrl: string = message.body?.type_url ?? '';
    if (!update || !typeUrl) return;
    const typeName = typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
    const body = decodeMessage(lookupType(typeName), message.body.value ?? new Uint8Array());
    this.exec.touch();
    if (typeName.endsWith('.Acceptance')) {
      update.state = 'accepted';
      update.acceptedEventId = this.exec.append('workflowExecutionUpdateAcceptedEventAttributes', {
        protocolInstanceId: update.id,
        acceptedRequestMessageId: body.acceptedRequestMessageId,
        acceptedRequestSequencingEventId: body.acceptedRequestSequencingEventId,
        acceptedRequest: body.acceptedRequest ?? update.request,
      }).eventId;
      this.advance(update, UpdateStage.ACCEPTED);
    } else if (typeName.endsWith('.Rejection')) {
      update.state = 'completed';
      update.outcome = { failure: body.failure };
      this.advance(update, UpdateStage.COMPLETED);
    } else if (typeName.endsWith('.Response')) {
      update.state = 'completed';
      update.outcome = body.outcome;
      this.exec.append('workflowExecutionUpdateCompletedEventAttributes', {
        meta: body.meta ?? { updateId: update.id },
        acceptedEventId: update.acceptedEventId ?? 0,
        outcome: body.outcome,
      });
      this.advance(update, UpdateStage.COMPLETED);
    }
  }

  /**
   * The run closed. As in Temporal, an accepted update completes with a failure (callers that saw
   * it accepted expect an outcome); one not yet accepted is aborted, its callers get NOT_FOUND.
   */
  close(): void {
    for (const u of this.updates.values()) {
      if (u.state === 'completed' || u.state === 'aborted') continue;
      this.exec.touch();
      if (u.state === 'accepted') {
        u.state = 'completed';
        u.outcome = { failure: COMPLETED_WORKFLOW_FAILURE };
        this.advance(u, UpdateStage.COMPLETED);
        continue;
      }
      u.state = 'aborted';
      for (const w of u.waiters) w.reject(notFound(ABORTED_BY_CLOSE));
      u.waiters = [];
    }
  }
}
