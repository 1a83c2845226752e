// Workflow updates (the update protocol), as Temporal's update registry: requests ride on workflow
// tasks as protocol messages (re-sent until the workflow answers, so a task that fails or times
// out loses none); the worker's acceptance and response come back as messages, ordered by
// ProtocolMessage commands. Rejected updates leave no events, accepted ones write UpdateAccepted
// (with the request, so a replaying worker meets the update at the same point) and UpdateCompleted.
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type { DynamicConfig } from '../common/dynamic-config.ts';
import { ResourceExhaustedCause, ResourceExhaustedScope, UpdateStage } from '../common/enums.ts';
import { failedPrecondition, invalidArgument, notFound, requireField, ServiceError } from '../common/errors.ts';
import { protoSize } from '../common/limits.ts';
import { decodeMessage, encodeMessage, lookupType, type Msg } from '../common/proto.ts';

const REQUEST_TYPE = 'temporal.api.update.v1.Request';
/** From this workflow task attempt on, Temporal refuses updates (its failUpdateWorkflowTaskAttemptCount). */
const FAILING_TASK_ATTEMPT = 3;
const ABORTED_BY_CLOSE = 'workflow update was aborted by closing workflow';

/** Temporal's rejection of an update its workflow task delivered and the worker left unanswered. */
const UNPROCESSED_FAILURE: Msg = {
  message: "Workflow Update is rejected because it wasn't processed by worker. Probably, Workflow Update is not supported by the worker.",
  source: 'Server',
  applicationFailureInfo: { type: 'UnprocessedUpdate', nonRetryable: true },
};

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
export function validateUpdateRequest(req: Msg, maxIdLength: number): void {
  requireField(req.workflowExecution, 'Execution');
  requireField(req.workflowExecution.workflowId, 'WorkflowId');
  const meta = req.request?.meta;
  if (!meta) throw invalidArgument('Update meta is not set on request.');
  if ((meta.updateId ?? '').length > maxIdLength) throw invalidArgument('UpdateId length exceeds limit.');
  meta.updateId ||= randomUUID();
  if (!req.request.input) throw invalidArgument('Update input is not set on request.');
  if (!req.request.input.name) throw invalidArgument('Update name is not set on request.');
  // As Temporal's frontend: a request that names no stage waits for the outcome.
  req.waitPolicy = { ...req.waitPolicy, lifecycleStage: req.waitPolicy?.lifecycleStage || UpdateStage.COMPLETED };
  if (req.waitPolicy.lifecycleStage === UpdateStage.ADMITTED) {
    throw new ServiceError(
      status.PERMISSION_DENIED,
      'UpdateWorkflowExecution issued asynchronously and waiting on update admitted is not supported.',
    );
  }
}

const requestSize = (request: Msg) => protoSize(REQUEST_TYPE, request);

/** Temporal's RESOURCE_EXHAUSTED for the limits on updates in flight. */
function concurrentLimit(message: string): ServiceError {
  return new ServiceError(status.RESOURCE_EXHAUSTED, message, {
    typeName: 'temporal.api.errordetails.v1.ResourceExhaustedFailure',
    value: { cause: ResourceExhaustedCause.CONCURRENT_LIMIT, scope: ResourceExhaustedScope.NAMESPACE },
  });
}

/** The error of an update that was admitted (not yet accepted) when its run closed. */
export function isAbortedByClose(err: unknown): boolean {
  return err instanceof ServiceError && err.code === status.NOT_FOUND && err.message === ABORTED_BY_CLOSE;
}

/**
 * An update admitted but not accepted when its run continued as new (or was retried): as in
 * Temporal, its caller's request is retried on the run that follows.
 */
class MovedToNextRun extends Error {}

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
  /** Aborted because the run continued as new: requests for it are retried on the next run. */
  moved?: boolean;
  stage: number;
  outcome?: Msg;
  acceptedEventId?: number;
  /** Its WorkflowExecutionUpdateAdmitted event (reapplied by a reset): workers read the request there, no message is sent. */
  admittedEventId?: number;
}

/** What updates need of their run (workflow-execution.ts implements it). */
export interface UpdateHost {
  readonly ns: {
    readonly dynamicConfig: DynamicConfig;
    /** The current run of a workflow id, which updates not yet accepted follow across a continue-as-new. */
    current(workflowId: string): { readonly updates: Updates } | undefined;
  };
  readonly workflowId: string;
  readonly isOpen: boolean;
  readonly ref: { workflowId: string; runId: string };
  readonly workflowTaskState: { attempt: number; closing: boolean };
  touch(): void;
  ensureWorkflowTask(): void;
  append(attrField: string, attrs: Msg): Msg;
}

export class Updates {
  private readonly exec: UpdateHost;
  private readonly updates = new Map<string, Update>();

  constructor(exec: UpdateHost) {
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
    if (this.exec.isOpen) this.checkRunAccepts();
    if (!this.updates.has(updateId)) {
      if (!this.exec.isOpen) throw notFound('workflow execution already completed');
      this.checkLimits(req.request);
      this.admit(req.request);
      // As Temporal: with no workflow task pending one is made for the update, even before a
      // start delay has passed (the update then rides on the run's first task).
      this.exec.ensureWorkflowTask();
    }
    try {
      return await this.wait(updateId, req.waitPolicy?.lifecycleStage || UpdateStage.COMPLETED, signal);
    } catch (err) {
      if (!(err instanceof MovedToNextRun)) throw err;
      const next = this.exec.ns.current(this.exec.workflowId);
      if (req.workflowExecution?.runId || !next || next.updates === this) throw notFound(ABORTED_BY_CLOSE);
      return next.updates.request(req, signal);
    }
  }

  /**
   * Temporal's refusals before an update is looked up: a workflow task failing again and again (an
   * update could not fix it), and a run whose last task tried to close it while another runs.
   */
  private checkRunAccepts(): void {
    const { attempt, closing } = this.exec.workflowTaskState;
    if (attempt >= FAILING_TASK_ATTEMPT) {
      throw new ServiceError(
        status.FAILED_PRECONDITION,
        'Unable to perform workflow execution update due to Workflow Task in failed state.',
        { typeName: 'temporal.api.errordetails.v1.WorkflowNotReadyFailure', value: {} },
      );
    }
    if (closing) {
      throw new ServiceError(status.RESOURCE_EXHAUSTED, 'workflow operation can not be applied because workflow is closing', {
        typeName: 'temporal.api.errordetails.v1.ResourceExhaustedFailure',
        value: { cause: ResourceExhaustedCause.BUSY_WORKFLOW, scope: ResourceExhaustedScope.NAMESPACE },
      });
    }
  }

  /**
   * Temporal's limits per run (dynamic config `history.maxInFlightUpdates` and
   * `history.maxTotalUpdates`, 0 for none): updates not yet completed, then all updates received
   * (rejected ones not counted), with Temporal's errors and words.
   */
  private checkLimits(request: Msg): void {
    const config = this.exec.ns.dynamicConfig;
    const maxInFlight = config.get('history.maxInFlightUpdates');
    if (maxInFlight > 0 && this.inFlight >= maxInFlight) {
      throw concurrentLimit(`limit on number of concurrent in-flight updates has been reached (${maxInFlight})`);
    }
    const maxBytes = config.get('history.maxInFlightUpdatePayloads');
    if (maxBytes > 0 && this.inFlightBytes + requestSize(request) >= maxBytes) {
      throw concurrentLimit(`limit on total payload size of in-flight updates has been reached (${maxBytes} bytes)`);
    }
    const maxTotal = config.get('history.maxTotalUpdates');
    if (maxTotal > 0 && this.counted >= maxTotal) {
      throw failedPrecondition(
        `The limit on the total number of distinct updates in this workflow has been reached (${maxTotal}). ` +
          "Make sure any duplicate updates share an Update ID so the server can deduplicate them, and consider rejecting updates that you aren't going to process. " +
          'You can also Continue-as-New to avoid this; we recommend you check Continue-as-New Suggested in your Workflow.',
      );
    }
  }

  /** Updates admitted, delivered or accepted, not yet completed. */
  private get inFlight(): number {
    let n = 0;
    for (const u of this.updates.values()) if (u.state === 'admitted' || u.state === 'sent' || u.state === 'accepted') n++;
    return n;
  }

  /** Temporal's registry size: update ids and requests of the updates in flight. */
  private get inFlightBytes(): number {
    let n = 0;
    for (const u of this.updates.values()) {
      if (u.state === 'admitted' || u.state === 'sent' || u.state === 'accepted') n += Buffer.byteLength(u.id) + requestSize(u.request);
    }
    return n;
  }

  /** What Temporal counts against the total limit: updates in flight and those completed after acceptance. */
  private get counted(): number {
    let n = 0;
    for (const u of this.updates.values()) {
      if (u.state === 'admitted' || u.state === 'sent' || u.state === 'accepted') n++;
      else if (u.state === 'completed' && u.acceptedEventId !== undefined) n++;
    }
    return n;
  }

  /** Temporal suggests continuing as new once the run has received this share of its total limit of updates. */
  get suggestContinueAsNew(): boolean {
    const config = this.exec.ns.dynamicConfig;
    const threshold = Math.ceil(
      config.get('history.maxTotalUpdates') * config.get('history.maxTotalUpdates.suggestContinueAsNewThreshold'),
    );
    return threshold > 0 && this.counted >= threshold;
  }

  /**
   * Records a new update, to be delivered with the next workflow task that starts. Update-with-start
   * calls it before the run's first workflow task is scheduled, so that task carries it.
   */
  admit(request: Msg, admittedEventId?: number): void {
    const id: string = request.meta.updateId;
    this.updates.set(id, { id, request, state: 'admitted', stage: UpdateStage.ADMITTED, admittedEventId, waiters: [] });
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

  /** PollWorkflowExecutionUpdate; with no stage asked for, it answers at once with the stage reached. */
  async poll(req: Msg, signal: AbortSignal): Promise<Msg> {
    const updateId: string = req.updateRef?.updateId ?? '';
    const update = this.updates.get(updateId);
    if (!update) throw notFound(`update "${updateId}" not found`);
    if (update.moved) {
      const next = this.exec.ns.current(this.exec.workflowId);
      if (!req.updateRef.workflowExecution?.runId && next && next.updates !== this && next.updates.has(updateId)) {
        return next.updates.poll(req, signal);
      }
    }
    return this.respond(await this.waitFor(update, req.waitPolicy?.lifecycleStage || UpdateStage.ADMITTED, signal));
  }

  private respond(update: Update): Msg {
    return {
      updateRef: { workflowExecution: this.exec.ref, updateId: update.id },
      outcome: update.outcome,
      stage: update.stage,
    };
  }

  /**
   * Waits until the update reaches `stage`. As Temporal's history service, a wait longer than
   * `history.longPollExpirationInterval` answers with the stage reached so far (the SDK asks again).
   */
  private waitFor(update: Update, stage: number, signal: AbortSignal): Promise<Update> {
    if (update.state === 'aborted') return Promise.reject(update.moved ? new MovedToNextRun() : notFound(ABORTED_BY_CLOSE));
    if (update.stage >= stage) return Promise.resolve(update);
    return new Promise((resolve, reject) => {
      const settle = (then: () => void) => () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        update.waiters = update.waiters.filter((w) => w !== waiter);
        then();
      };
      const waiter: Waiter = {
        stage,
        resolve: (u) => settle(() => resolve(u))(),
        reject: (err) => settle(() => reject(err))(),
      };
      const onAbort = settle(() => reject(new ServiceError(status.CANCELLED, 'update request cancelled')));
      const timer = setTimeout(
        settle(() => resolve(update)),
        this.exec.ns.dynamicConfig.get('history.longPollExpirationInterval'),
      );
      update.waiters.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private advance(update: Update, stage: number): void {
    update.stage = stage;
    for (const w of update.waiters.filter((w) => w.stage <= stage)) w.resolve(update);
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
      if (u.admittedEventId !== undefined) continue;
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
   * After a completed workflow task (not a heartbeat) of a run still open: the updates it delivered
   * that the worker neither accepted nor rejected are rejected, as Temporal does.
   */
  rejectUnprocessed(): void {
    for (const u of this.updates.values()) {
      if (u.state !== 'sent') continue;
      this.exec.touch();
      u.state = 'completed';
      u.outcome = { failure: UNPROCESSED_FAILURE };
      this.advance(u, UpdateStage.COMPLETED);
    }
  }

  /**
   * The run closed. As in Temporal, an accepted update completes with a failure (callers that saw
   * it accepted expect an outcome); one not yet accepted is aborted: its callers get NOT_FOUND, or
   * when `continuing` (a next run follows) their requests go to the next run.
   */
  close(continuing: boolean): void {
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
      u.moved = continuing || undefined;
      // Rejected once the close is committed, so a moved request finds the next run in place.
      const waiters = u.waiters;
      queueMicrotask(() => {
        for (const w of waiters) w.reject(continuing ? new MovedToNextRun() : notFound(ABORTED_BY_CLOSE));
      });
    }
  }
}
