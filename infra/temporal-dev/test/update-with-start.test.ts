// Update-with-start (ExecuteMultiOperation) through the SDK's WithStartWorkflowOperation and as raw
// calls, and updates that reach a run before its first workflow task.
import { randomUUID } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { google, temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, eventually, grpcError, type Suite, setupSuite, startWorker, teardownSuite } from './helpers.ts';
import { addUpdate, neverEndingUpdate, updateLog, withNeverEndingUpdate } from './workflows/index.ts';

let s: Suite;
beforeAll(async () => {
  s = await setupSuite('local', 'update-with-start', {});
});
afterAll(() => teardownSuite(s));

const id = (prefix: string) => `${prefix}-${randomUUID()}`;
const { UpdateWorkflowExecutionLifecycleStage: Stage } = temporal.api.enums.v1;
const payloads = (...values: unknown[]) => ({ payloads: values.map((v) => defaultPayloadConverter.toPayload(v)) });
const svc = () => s.env.client.workflowService;

/** The raw [Start, Update] operations of an update-with-start of `updateLog` on `workflowId`. */
function operations(workflowId: string, item: string, start: object = {}, update: object = {}) {
  return [
    {
      startWorkflow: {
        namespace: 'default',
        workflowId,
        workflowType: { name: 'updateLog' },
        taskQueue: { name: s.taskQueue },
        requestId: randomUUID(),
        workflowIdConflictPolicy: temporal.api.enums.v1.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
        ...start,
      },
    },
    {
      updateWorkflow: {
        namespace: 'default',
        workflowExecution: { workflowId },
        request: { meta: { updateId: randomUUID() }, input: { name: 'addItem', args: payloads(item) } },
        waitPolicy: { lifecycleStage: Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED },
        ...update,
      },
    },
  ];
}

/** A failed ExecuteMultiOperation: its status and the per-operation statuses of its MultiOperationExecutionFailure. */
async function multiOperationFailure(call: Promise<unknown>) {
  const err = (await call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  )) as { code: number; details: string; metadata: { get(key: string): unknown[] } };
  const status = google.rpc.Status.decode(err.metadata.get('grpc-status-details-bin')[0] as Buffer);
  expect(status.details).toHaveLength(1);
  expect(status.details[0]!.type_url).toBe('type.googleapis.com/temporal.api.errordetails.v1.MultiOperationExecutionFailure');
  const { statuses } = temporal.api.errordetails.v1.MultiOperationExecutionFailure.decode(status.details[0]!.value!);
  return {
    code: err.code,
    message: err.details,
    statuses: statuses.map((st) => ({
      code: st.code,
      message: st.message,
      details: (st.details ?? []).map((d) => d.type_url!.replace('type.googleapis.com/', '')),
    })),
    rawStatuses: statuses,
  };
}

const updateEvents = ['WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 'WORKFLOW_EXECUTION_UPDATE_COMPLETED'];
const aborted = { code: 10, message: 'Operation was aborted.', details: ['temporal.api.failure.v1.MultiOperationExecutionAborted'] };

/** Event types written after the run's first WorkflowTaskCompleted, up to its next WorkflowTaskScheduled. */
async function firstCompletion(workflowId: string, runId?: string): Promise<string[]> {
  const history = await s.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
  const types = eventTypes(history.events);
  const completed = types.indexOf('WORKFLOW_TASK_COMPLETED');
  const next = types.indexOf('WORKFLOW_TASK_SCHEDULED', completed);
  return types.slice(completed + 1, next < 0 ? undefined : next);
}

describe('update-with-start through the SDK', () => {
  it('starts the workflow and runs the update in its first workflow task, before its first await', async () => {
    const startWorkflowOperation = new WithStartWorkflowOperation(updateLog, {
      workflowId: id('uws'),
      taskQueue: s.taskQueue,
      workflowIdConflictPolicy: 'FAIL',
    });
    // The SDK holds the update until the workflow sets its handler, then runs it at once.
    expect(await s.env.client.workflow.executeUpdateWithStart(addUpdate, { args: ['first'], startWorkflowOperation })).toBe(1);
    const handle = await startWorkflowOperation.workflowHandle();
    expect(await handle.executeUpdate(addUpdate, { args: ['done'] })).toBe(4);
    expect(await handle.result()).toEqual(['update first', 'main started', 'main after its first await', 'update done']);
    expect(await firstCompletion(handle.workflowId)).toEqual(expect.arrayContaining(updateEvents));
    const accepted = (await handle.fetchHistory()).events!.find((e) => e.workflowExecutionUpdateAcceptedEventAttributes)!;
    // The request was sequenced just before the first WorkflowTaskStarted (event 3).
    expect(Number(accepted.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequestSequencingEventId)).toBe(2);
  });

  it('answers startUpdateWithStart once the update is accepted; the result follows', async () => {
    const startWorkflowOperation = new WithStartWorkflowOperation(updateLog, {
      workflowId: id('uws-accepted'),
      taskQueue: s.taskQueue,
      workflowIdConflictPolicy: 'FAIL',
    });
    const update = await s.env.client.workflow.startUpdateWithStart(addUpdate, {
      args: ['a'],
      waitForStage: 'ACCEPTED',
      startWorkflowOperation,
    });
    expect(await update.result()).toBe(1);
    const handle = await startWorkflowOperation.workflowHandle();
    expect(update.workflowRunId).toBe((await handle.describe()).runId);
    await handle.terminate();
  });

  it('with USE_EXISTING updates the running workflow instead of starting another', async () => {
    const workflowId = id('uws-existing');
    const existing = await s.env.client.workflow.start(updateLog, { taskQueue: s.taskQueue, workflowId });
    const startWorkflowOperation = new WithStartWorkflowOperation(updateLog, {
      workflowId,
      taskQueue: s.taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    expect(await s.env.client.workflow.executeUpdateWithStart(addUpdate, { args: ['x'], startWorkflowOperation })).toBeGreaterThan(1);
    expect((await (await startWorkflowOperation.workflowHandle()).describe()).runId).toBe(existing.firstExecutionRunId);
    const raw = await svc().executeMultiOperation({
      namespace: 'default',
      operations: operations(workflowId, 'y', {
        workflowIdConflictPolicy: temporal.api.enums.v1.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
      }),
    });
    expect(raw.responses![0]!.startWorkflow).toMatchObject({ runId: existing.firstExecutionRunId, started: false });
    expect(raw.responses![1]!.updateWorkflow!.stage).toBe(Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED);
    expect(await existing.executeUpdate(addUpdate, { args: ['done'] })).toBeGreaterThan(3);
    expect((await existing.result()).filter((entry) => entry.startsWith('update'))).toEqual(['update x', 'update y', 'update done']);
  });

  it('with FAIL rejects a running workflow id: both the update and the workflow handle fail', async () => {
    const workflowId = id('uws-fail');
    const existing = await s.env.client.workflow.start(updateLog, { taskQueue: s.taskQueue, workflowId });
    const startWorkflowOperation = new WithStartWorkflowOperation(updateLog, {
      workflowId,
      taskQueue: s.taskQueue,
      workflowIdConflictPolicy: 'FAIL',
    });
    const update = s.env.client.workflow.executeUpdateWithStart(addUpdate, { args: ['x'], startWorkflowOperation });
    await expect(update).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
    await expect(startWorkflowOperation.workflowHandle()).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);

    const failure = await multiOperationFailure(
      svc().executeMultiOperation({ namespace: 'default', operations: operations(workflowId, 'x') }),
    );
    expect(failure).toMatchObject({
      code: 6,
      message: 'Update-with-Start could not be executed.',
      statuses: [
        {
          code: 6,
          message: `Workflow execution is already running. WorkflowId: ${workflowId}, RunId: ${existing.firstExecutionRunId}.`,
          details: ['temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure'],
        },
        aborted,
      ],
    });
    const detail = temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure.decode(failure.rawStatuses[0]!.details![0]!.value!);
    expect(detail.runId).toBe(existing.firstExecutionRunId);
    expect(detail.startRequestId).toMatch(/^[0-9a-f-]{36}$/);
    // The existing run saw no update.
    await existing.terminate();
    expect(eventTypes((await existing.fetchHistory()).events)).not.toContain('WORKFLOW_EXECUTION_UPDATE_ACCEPTED');
  });

  it('starts the workflow even when its validator rejects the update', async () => {
    const startWorkflowOperation = new WithStartWorkflowOperation(updateLog, {
      workflowId: id('uws-rejected'),
      taskQueue: s.taskQueue,
      workflowIdConflictPolicy: 'FAIL',
    });
    const rejected = await s.env.client.workflow
      .executeUpdateWithStart(addUpdate, { args: ['invalid'], startWorkflowOperation })
      .catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((rejected as WorkflowUpdateFailedError).cause?.message).toBe('rejected by validator');
    const handle = await startWorkflowOperation.workflowHandle();
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(await handle.executeUpdate(addUpdate, { args: ['done'] })).toBeGreaterThan(1);
    expect(await handle.result()).toEqual(['main started', 'main after its first await', 'update done']);
    expect(eventTypes((await handle.fetchHistory()).events).filter((t) => t.startsWith('WORKFLOW_EXECUTION_UPDATE'))).toHaveLength(2);
  });
});

describe('update-with-start as raw calls', () => {
  it('dedupes a retried request: same run, the update applied once, later answered from the closed run', async () => {
    const workflowId = id('uws-retry');
    const ops = operations(workflowId, 'once');
    const first = await svc().executeMultiOperation({ namespace: 'default', operations: ops });
    expect(first.responses![0]!.startWorkflow).toMatchObject({ started: true });
    const runId = first.responses![0]!.startWorkflow!.runId!;
    expect(first.responses![1]!.updateWorkflow!.updateRef!.workflowExecution).toMatchObject({ workflowId, runId });
    const again = await svc().executeMultiOperation({ namespace: 'default', operations: ops });
    expect(again.responses![0]!.startWorkflow).toMatchObject({ runId, started: false });
    expect(again.responses![1]!.updateWorkflow!.outcome).toEqual(first.responses![1]!.updateWorkflow!.outcome);

    // The same start request with another update (conflict policy FAIL) is a retry too: it updates that run.
    const [start] = ops;
    const [, update] = operations(workflowId, 'done');
    const other = await svc().executeMultiOperation({ namespace: 'default', operations: [start!, update!] });
    expect(other.responses![0]!.startWorkflow).toMatchObject({ runId, started: false });
    const handle = s.env.client.workflow.getHandle(workflowId);
    expect(await handle.result()).toEqual(['update once', 'main started', 'main after its first await', 'update done']);

    const closed = await svc().executeMultiOperation({ namespace: 'default', operations: ops });
    expect(closed.responses![0]!.startWorkflow).toMatchObject({
      runId,
      started: false,
      status: temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
    });
    expect(closed.responses![1]!.updateWorkflow!.outcome).toEqual(first.responses![1]!.updateWorkflow!.outcome);
  });

  it('gives an update without an id one, as Temporal does', async () => {
    const workflowId = id('uws-no-update-id');
    const response = await svc().executeMultiOperation({
      namespace: 'default',
      operations: operations(workflowId, 'x', {}, { request: { meta: {}, input: { name: 'addItem', args: payloads('x') } } }),
    });
    expect(response.responses![1]!.updateWorkflow!.updateRef!.updateId).toMatch(/^[0-9a-f-]{36}$/);
    await s.env.client.workflow.getHandle(workflowId).terminate();
  });

  it('refuses malformed requests with the failing operation named and the other marked aborted', async () => {
    const workflowId = id('uws-invalid');
    const call = (ops: object[]) => svc().executeMultiOperation({ namespace: 'default', operations: ops });
    const ops = operations(workflowId, 'x');
    expect(await grpcError(call([ops[0]!]))).toEqual({ code: 3, details: 'Operations have to be exactly [Start, Update].' });
    expect(await grpcError(call([ops[1]!, ops[0]!]))).toEqual({ code: 3, details: 'Operations have to be exactly [Start, Update].' });

    const invalid = (message: string) => ({ code: 3, message, details: [] });
    const cases: Array<[object[], object[]]> = [
      [
        operations(workflowId, 'x', {}, { request: { meta: { updateId: 'u' }, input: { args: payloads('x') } } }),
        [aborted, invalid('Update name is not set on request.')],
      ],
      [
        operations(workflowId, 'x', {}, { workflowExecution: { workflowId, runId: randomUUID() } }),
        [aborted, invalid('RunId is not allowed.')],
      ],
      [operations(workflowId, 'x', { workflowStartDelay: msToTs('5s') }), [invalid('WorkflowStartDelay is not supported.'), aborted]],
      [operations(workflowId, 'x', { requestEagerExecution: true }), [invalid('RequestEagerExecution is not supported.'), aborted]],
      [operations(workflowId, 'x', { workflowType: undefined }), [invalid('WorkflowType is not set on request.'), aborted]],
      [
        operations(workflowId, 'x', {}, { workflowExecution: { workflowId: 'another' } }),
        [aborted, invalid('WorkflowId is not consistent with previous operation(s).')],
      ],
    ];
    for (const [operationsOf, statuses] of cases) {
      expect(await multiOperationFailure(call(operationsOf))).toMatchObject({
        code: 3,
        message: 'Update-with-Start could not be executed.',
        statuses,
      });
    }
    const admitted = await multiOperationFailure(
      call(operations(workflowId, 'x', {}, { waitPolicy: { lifecycleStage: Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED } })),
    );
    expect(admitted).toMatchObject({
      code: 7,
      statuses: [
        aborted,
        { code: 7, message: 'UpdateWorkflowExecution issued asynchronously and waiting on update admitted is not supported.' },
      ],
    });
    // Nothing was started.
    await expect(s.env.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    const unknown = await grpcError(svc().executeMultiOperation({ namespace: 'no-such-namespace', operations: ops }));
    expect(unknown.code).toBe(5);
  });
});

describe('updates reaching a run before its first workflow task', () => {
  it('delivers an update sent before any worker polled in the first workflow task', async () => {
    const taskQueue = id('no-worker-yet');
    const handle = await s.env.client.workflow.start(updateLog, { taskQueue, workflowId: id('early-update') });
    const update = handle.executeUpdate(addUpdate, { args: ['early'], updateId: 'early' });
    await waitUntilAdmitted(handle.workflowId, 'early');
    const worker = await startWorker(s.env, { taskQueue });
    try {
      expect(await update).toBe(1);
      expect(await firstCompletion(handle.workflowId)).toEqual(expect.arrayContaining(updateEvents));
      await handle.terminate();
    } finally {
      await worker.stop();
    }
  });

  it('retries update-with-start on a new run when the existing run closes before accepting the update', async () => {
    const taskQueue = id('no-worker-yet');
    const workflowId = id('uws-closing');
    const existing = await s.env.client.workflow.start(updateLog, { taskQueue, workflowId });
    const startWorkflowOperation = new WithStartWorkflowOperation(updateLog, {
      workflowId,
      taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    const update = s.env.client.workflow.executeUpdateWithStart(addUpdate, {
      args: ['retried'],
      updateId: 'retried',
      startWorkflowOperation,
    });
    await waitUntilAdmitted(workflowId, 'retried');
    await existing.terminate();
    const worker = await startWorker(s.env, { taskQueue });
    try {
      expect(await update).toBe(1);
      const { runId } = await (await startWorkflowOperation.workflowHandle()).describe();
      expect(runId).not.toBe(existing.firstExecutionRunId);
      expect(await firstCompletion(workflowId, runId)).toEqual(expect.arrayContaining(updateEvents));
      const closed = s.env.client.workflow.getHandle(workflowId, existing.firstExecutionRunId);
      expect(eventTypes((await closed.fetchHistory()).events)).toEqual([
        'WORKFLOW_EXECUTION_STARTED',
        'WORKFLOW_TASK_SCHEDULED',
        'WORKFLOW_EXECUTION_TERMINATED',
      ]);
      await s.env.client.workflow.getHandle(workflowId, runId).terminate();
    } finally {
      await worker.stop();
    }
  });
});

describe('updates of a run that closes', () => {
  it("fails an accepted update with Temporal's failure and aborts one not yet accepted", async () => {
    const handle = await s.env.client.workflow.start(withNeverEndingUpdate, { taskQueue: s.taskQueue, workflowId: id('closing') });
    const accepted = await handle.startUpdate(neverEndingUpdate, { waitForStage: 'ACCEPTED' });
    await handle.terminate();
    const failed = await accepted.result().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((failed as WorkflowUpdateFailedError).cause?.message).toBe(
      'Workflow Update failed because the Workflow completed before the Update completed.',
    );

    const idle = await s.env.client.workflow.start(updateLog, { taskQueue: id('no-worker'), workflowId: id('closing-admitted') });
    const pending = idle.executeUpdate(addUpdate, { args: ['never'], updateId: 'never' }).catch((e: unknown) => e);
    await waitUntilAdmitted(idle.workflowId, 'never');
    await idle.terminate();
    const abortedUpdate = await pending;
    expect(abortedUpdate).toBeInstanceOf(WorkflowNotFoundError);
    expect((abortedUpdate as Error).message).toBe('workflow update was aborted by closing workflow');
  });
});

/** Polls until the server has admitted update `updateId` of the current run of `workflowId`. */
async function waitUntilAdmitted(workflowId: string, updateId: string): Promise<void> {
  await eventually(() =>
    svc()
      .pollWorkflowExecutionUpdate({
        namespace: 'default',
        updateRef: { workflowExecution: { workflowId }, updateId },
        waitPolicy: { lifecycleStage: Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED },
      })
      .then(
        () => true,
        () => false,
      ),
  );
}
