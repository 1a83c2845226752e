// ResetWorkflowExecution through the SDK's workflowService, as Temporal's history service does it:
// the new run replays the base run's history up to the workflow task, that task failed with
// RESET_WORKFLOW, signals and updates after the point reapplied per the reset-reapply options,
// the current run terminated with the reset's reason, and the runs linked both ways.
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, eventually, grpcError, type Suite, setupSuite, teardownSuite } from './helpers.ts';
import { activityOrFail, addSignal, addUpdate, collect, waitForever } from './workflows/index.ts';

const { ResetReapplyExcludeType, ResetReapplyType, WorkflowTaskFailedCause } = temporal.api.enums.v1;

const failedOnce = new Set<string>();
let s: Suite;
beforeAll(async () => {
  s = await setupSuite('local', 'reset', {
    flakyOnce: async () => {
      const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
      if (!failedOnce.has(workflowId)) {
        failedOnce.add(workflowId);
        throw new Error('the first attempt breaks');
      }
      return 'fixed';
    },
  });
});
afterAll(() => teardownSuite(s));

const id = (prefix: string) => `${prefix}-${randomUUID()}`;
type Long = NonNullable<temporal.api.workflowservice.v1.IResetWorkflowExecutionRequest['workflowTaskFinishEventId']>;
const reset = (workflowId: string, runId: string, finishEventId: number, more: Record<string, unknown> = {}) =>
  s.env.client.workflowService.resetWorkflowExecution({
    namespace: 'default',
    workflowExecution: { workflowId, runId },
    // An int64 field: protobufjs takes a number (its typings say Long).
    workflowTaskFinishEventId: finishEventId as unknown as Long,
    reason: 'reset by the test',
    requestId: randomUUID(),
    ...more,
  }) as Promise<temporal.api.workflowservice.v1.IResetWorkflowExecutionResponse>;
/** The id of the run's first WorkflowTaskCompleted: a reset there replays the start only. */
const firstTaskCompleted = (workflowId: string, runId: string) =>
  eventually(async () => {
    const history = await s.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    return Number(history.events!.find((e) => e.workflowTaskCompletedEventAttributes)?.eventId ?? 0);
  });

describe('ResetWorkflowExecution', () => {
  it('resets a failed run: the new run replays to the point, its task failed RESET_WORKFLOW, and completes', async () => {
    const workflowId = id('failed');
    const handle = await s.env.client.workflow.start(activityOrFail, { taskQueue: s.taskQueue, workflowId });
    await expect(handle.result()).rejects.toThrow();
    const baseRunId = handle.firstExecutionRunId;
    const point = await firstTaskCompleted(workflowId, baseRunId);
    const { runId } = await reset(workflowId, baseRunId, point);
    expect(runId).toBeTruthy();
    expect(runId).not.toBe(baseRunId);

    const next = s.env.client.workflow.getHandle(workflowId, runId!);
    expect(await next.result()).toBe('fixed');
    const history = (await next.fetchHistory()).events!;
    const base = (await s.env.client.workflow.getHandle(workflowId, baseRunId).fetchHistory()).events!;
    // The base run's events up to the task's start, as they were.
    expect(history.slice(0, point - 1).map((e) => Number(e.eventId))).toEqual(base.slice(0, point - 1).map((e) => Number(e.eventId)));
    expect(eventTypes(history.slice(0, point))).toEqual([
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_FAILED',
    ]);
    const failed = history[point - 1]!.workflowTaskFailedEventAttributes!;
    expect(failed).toMatchObject({ cause: WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW, baseRunId, newRunId: runId });
    expect(failed.failure?.message).toBe('reset by the test');
    expect(history[0]!.workflowExecutionStartedEventAttributes?.originalExecutionRunId).toBe(baseRunId);

    const described = await s.env.client.workflow.getHandle(workflowId, baseRunId).describe();
    expect(described.status.name).toBe('FAILED');
    expect(described.raw.workflowExtendedInfo?.resetRunId).toBe(runId);
    const resetRun = await next.describe();
    expect(resetRun.raw.workflowExtendedInfo?.lastResetTime).toBeTruthy();
    expect(resetRun.raw.workflowExecutionInfo?.firstRunId).toBe(baseRunId);
    // The workflow id's current run is the reset one.
    expect((await s.env.client.workflow.getHandle(workflowId).describe()).runId).toBe(runId);
  });

  it('terminates the running run with the reason and reapplies its signals and updates after the point', async () => {
    const workflowId = id('running');
    const handle = await s.env.client.workflow.start(collect, { taskQueue: s.taskQueue, workflowId, args: [4] });
    await handle.signal(addSignal, 'a');
    expect(await handle.executeUpdate(addUpdate, { args: ['b'] })).toBe(2);
    await handle.signal(addSignal, 'c');
    const point = await firstTaskCompleted(workflowId, handle.firstExecutionRunId);
    const { runId } = await reset(workflowId, handle.firstExecutionRunId, point);

    const old = await s.env.client.workflow.getHandle(workflowId, handle.firstExecutionRunId).describe();
    expect(old.status.name).toBe('TERMINATED');
    const terminated = (await s.env.client.workflow.getHandle(workflowId, handle.firstExecutionRunId).fetchHistory()).events!.at(
      -1,
    )!.workflowExecutionTerminatedEventAttributes;
    expect(terminated).toMatchObject({ reason: 'reset by the test', identity: 'history-resetter' });

    const next = s.env.client.workflow.getHandle(workflowId, runId!);
    // All three came back (the update as an update again); a fourth completes the run.
    await next.signal(addSignal, 'd');
    expect((await next.result()).sort()).toEqual(['a', 'b', 'c', 'd']);
    const events = (await next.fetchHistory()).events!;
    const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes);
    expect(signals.map((e) => e.workflowExecutionSignaledEventAttributes!.signalName)).toEqual(['add', 'add', 'add']);
    // As Temporal's resetter writes it: the update's request in an UpdateAdmitted event (origin REAPPLY), then accepted and completed.
    const admitted = events.find((e) => e.workflowExecutionUpdateAdmittedEventAttributes)?.workflowExecutionUpdateAdmittedEventAttributes;
    expect(admitted?.request?.input?.name).toBe('addItem');
    expect(admitted?.origin).toBe(temporal.api.enums.v1.UpdateAdmittedEventOrigin.UPDATE_ADMITTED_EVENT_ORIGIN_REAPPLY);
    expect(eventTypes(events).filter((t) => t.startsWith('WORKFLOW_EXECUTION_UPDATE'))).toEqual([
      'WORKFLOW_EXECUTION_UPDATE_ADMITTED',
      'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
    ]);
  });

  it('reapplies nothing excluded: signals by resetReapplyExcludeTypes, everything by the deprecated reset type NONE', async () => {
    for (const options of [
      { resetReapplyExcludeTypes: [ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_SIGNAL] },
      { resetReapplyType: ResetReapplyType.RESET_REAPPLY_TYPE_NONE },
    ]) {
      const workflowId = id('excluded');
      const handle = await s.env.client.workflow.start(collect, { taskQueue: s.taskQueue, workflowId, args: [2] });
      await handle.signal(addSignal, 'a');
      const point = await firstTaskCompleted(workflowId, handle.firstExecutionRunId);
      const { runId } = await reset(workflowId, handle.firstExecutionRunId, point, options);
      const next = s.env.client.workflow.getHandle(workflowId, runId!);
      await next.signal(addSignal, 'x');
      await next.signal(addSignal, 'y');
      expect(await next.result()).toEqual(['x', 'y']);
    }
  });

  it('answers a retried request with the run it made, and refuses points that are not a workflow task', async () => {
    const workflowId = id('checks');
    const handle = await s.env.client.workflow.start(waitForever, { taskQueue: s.taskQueue, workflowId });
    const point = await firstTaskCompleted(workflowId, handle.firstExecutionRunId);
    const requestId = randomUUID();
    const first = await reset(workflowId, handle.firstExecutionRunId, point, { requestId });
    const again = await reset(workflowId, handle.firstExecutionRunId, point, { requestId });
    expect(again.runId).toBe(first.runId);

    for (const bad of [0, 1, 2, 999]) {
      const err = await grpcError(reset(workflowId, first.runId!, bad));
      expect(err).toMatchObject({ code: 3 });
      expect(err.details).toBe(`Can only reset workflow to event ID in range [WorkflowTaskScheduled +1, WorkflowTaskStarted + 1]: ${bad}`);
    }
    expect(await grpcError(reset(workflowId, randomUUID(), point))).toMatchObject({ code: 5 });
    await s.env.client.workflow.getHandle(workflowId).terminate();
  });
});
