// Workflow updates (the update protocol): requests ride on workflow tasks as protocol messages;
// the worker's acceptance and response come back as messages, ordered by ProtocolMessage commands.
// Rejected updates leave no events, accepted ones write UpdateAccepted and UpdateCompleted.
import { UpdateStage } from './enums.ts';
import { invalidArgument, notFound } from './errors.ts';
import { decodeMessage, encodeMessage, lookupType, type Msg } from './proto.ts';
import type { Execution } from './workflow-execution.ts';

const REQUEST_TYPE = 'temporal.api.update.v1.Request';

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
  /** admitted: not yet delivered; sent: in a running workflow task; then accepted / completed. */
  state: 'admitted' | 'sent' | 'accepted' | 'completed';
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

  /** UpdateWorkflowExecution: admits (or finds, by update id) and waits for the requested stage. */
  async request(req: Msg, signal: AbortSignal): Promise<Msg> {
    const updateId: string | undefined = req.request?.meta?.updateId;
    if (!updateId) throw invalidArgument('Update ID is not set on request.');
    if (!req.request?.input?.name) throw invalidArgument('Update name is not set on request.');
    let update = this.updates.get(updateId);
    if (!update) {
      if (!this.exec.isOpen) throw notFound('workflow execution already completed');
      update = { id: updateId, request: req.request, state: 'admitted', stage: UpdateStage.ADMITTED, waiters: [] };
      this.updates.set(updateId, update);
      this.exec.touch();
      this.exec.ensureWorkflowTask();
    }
    return this.respond(await this.waitFor(update, req.waitPolicy?.lifecycleStage || UpdateStage.ACCEPTED, signal));
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
    if (update.stage >= stage) return Promise.resolve(update);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { stage, resolve, reject };
      update.waiters.push(waiter);
      signal.addEventListener('abort', () => reject(new Error('update request cancelled')), { once: true });
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

  /** The run closed: pending updates can no longer complete. */
  close(): void {
    for (const u of this.updates.values()) {
      if (u.state === 'completed') continue;
      for (const w of u.waiters) w.reject(notFound('workflow execution already completed'));
      u.waiters = [];
    }
  }
}
