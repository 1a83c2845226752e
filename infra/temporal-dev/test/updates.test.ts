// Workflow update delivery as Temporal's history service does it, through the SDK: updates in the
// first workflow task (before a start delay has passed), with signals, timers and activities in
// one activation, replay at the same point, redelivery after a failed or timed-out task, the
// limits per run (lowered here with --dynamic-config-value), update-with-start's failures, and what
// callers of an unfinished update get when its workflow ends.
import { randomUUID } from 'node:crypto';
import {
  Client,
  Connection,
  WithStartWorkflowOperation,
  type WorkflowHandle,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
} from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, eventually, grpcError, type Suite, setupSuite, startWorker, teardownSuite, workflowWarnings } from './helpers.ts';
import {
  addUpdate,
  bumpSignal,
  bumps,
  bumpUpdate,
  counting,
  countUpdate,
  type Ending,
  endsWithHandler,
  firstOfFour,
  markedQuery,
  marksEarly,
  markUpdate,
  neverEndingUpdate,
  pingSignal,
  pingUpdate,
  releaseSignal,
  returnsAtOnce,
  slowUpdate,
  touchUpdate,
  updateLog,
  withNeverEndingUpdate,
} from './workflows/index.ts';

const MAX_IN_FLIGHT = 2;
const MAX_TOTAL = 4;
const MAX_IN_FLIGHT_BYTES = 100_000;
let s: Suite;
/** A client without the SDK's retries, which would retry RESOURCE_EXHAUSTED for many seconds. */
let bare: Client;
beforeAll(async () => {
  const extraArgs = [
    ['history.maxInFlightUpdates', MAX_IN_FLIGHT],
    ['history.maxTotalUpdates', MAX_TOTAL],
    ['history.maxInFlightUpdatePayloads', MAX_IN_FLIGHT_BYTES],
  ].flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${value}`]);
  s = await setupSuite('local', 'updates', {}, { extraArgs });
  bare = new Client({ connection: await Connection.connect({ address: s.env.address, interceptors: [] }) });
});
afterAll(async () => {
  await bare?.connection.close();
  await teardownSuite(s);
});

const id = (prefix: string) => `${prefix}-${randomUUID()}`;
const svc = () => s.env.client.workflowService;
const { UpdateWorkflowExecutionLifecycleStage: Stage, CommandType, WorkflowTaskFailedCause, TaskQueueKind } = temporal.api.enums.v1;

/** The stage an update has reached, asked as the SDK's own tests ask it (a poll with no stage answers at once); waits until admitted. */
function admitted(workflowId: string, updateId: string): Promise<number> {
  return eventually(async () => {
    try {
      const r = await svc().pollWorkflowExecutionUpdate({
        namespace: 'default',
        updateRef: { workflowExecution: { workflowId }, updateId },
      });
      return r.stage ?? undefined;
    } catch (err) {
      if ((err as { code?: number }).code === 5) return undefined;
      throw err;
    }
  });
}

/** Runs `body` with a worker of the test workflows on `taskQueue`, stopping it afterwards. */
async function withWorker<T>(taskQueue: string, body: () => Promise<T>, maxCachedWorkflows?: number): Promise<T> {
  const worker = await startWorker(s.env, { taskQueue, ...(maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows }) });
  try {
    return await body();
  } finally {
    await worker.stop();
  }
}

async function historyOf(handle: WorkflowHandle) {
  return (await handle.fetchHistory()).events ?? [];
}

/** A workflow task taken by hand, as a worker that then fails or dies would take it. */
function rawPoll(taskQueue: string) {
  return svc().pollWorkflowTaskQueue({
    namespace: 'default',
    taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    identity: 'raw-poller',
  });
}

describe('delivery', () => {
  it('updates sent while the start delay runs make the first workflow task and reach the workflow in it, in order, before its code goes on', async () => {
    const taskQueue = id('first-task');
    const options = { taskQueue, startDelay: '10000 days' };
    const once = await s.env.client.workflow.start(returnsAtOnce, { ...options, workflowId: id('once') });
    const touched = once.executeUpdate(touchUpdate, { updateId: 'touch' });
    expect(await admitted(once.workflowId, 'touch')).toBe(Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED);
    const log = await s.env.client.workflow.start(updateLog, { ...options, workflowId: id('log') });
    const first = log.executeUpdate(addUpdate, { args: ['a'], updateId: 'a' });
    await admitted(log.workflowId, 'a');
    const second = log.executeUpdate(addUpdate, { args: ['done'], updateId: 'done' });
    await admitted(log.workflowId, 'done');
    // With no worker, the updates stay admitted and the first task waits for one.
    expect(eventTypes(await historyOf(once))).toEqual(['WORKFLOW_EXECUTION_STARTED', 'WORKFLOW_TASK_SCHEDULED']);
    await withWorker(taskQueue, async () => {
      expect(await once.result()).toBe('touched');
      await touched;
      expect(await log.result()).toEqual(['update a', 'update done', 'main started', 'main after its first await']);
      expect([await first, await second]).toEqual([1, 2]);
    });
    const events = await historyOf(once);
    expect(eventTypes(events)).toEqual([
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_COMPLETED',
      'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
      'WORKFLOW_EXECUTION_COMPLETED',
    ]);
    const accepted = events[4]!.workflowExecutionUpdateAcceptedEventAttributes!;
    // Sequenced just before WorkflowTaskStarted, with the request kept for replay.
    expect(Number(accepted.acceptedRequestSequencingEventId)).toBe(2);
    expect(accepted.acceptedRequest?.input?.name).toBe('touch');
  });

  it('a replaying worker meets the update at the same point as the first execution', async () => {
    const taskQueue = id('replay');
    const handle = await s.env.client.workflow.start(marksEarly, { taskQueue, workflowId: id('replay'), startDelay: '10000 days' });
    void handle.executeUpdate(markUpdate, { updateId: 'mark' }).catch(() => undefined);
    await admitted(handle.workflowId, 'mark');
    // No cache: each later task (the query's, the signal's) replays the history from the start.
    await withWorker(
      taskQueue,
      async () => {
        expect(await handle.query(markedQuery)).toBe(true);
        await handle.signal(releaseSignal);
        expect(await handle.result()).toBe(true);
      },
      0,
    );
  });

  it('a signal and an update in one workflow task are both handled before workflow code resumes', async () => {
    const taskQueue = id('signal-update');
    const handle = await s.env.client.workflow.start(bumps, { taskQueue, workflowId: id('bumps') });
    // The first task as a worker would complete it: `bumps` only sets its handlers and waits.
    const task = await rawPoll(taskQueue);
    await svc().respondWorkflowTaskCompleted({ namespace: 'default', taskToken: task.taskToken, identity: 'raw-poller', commands: [] });
    await handle.signal(bumpSignal);
    const update = handle.executeUpdate(bumpUpdate, { updateId: 'bump' });
    await admitted(handle.workflowId, 'bump');
    await withWorker(taskQueue, async () => {
      // Had the wait ended between the two, the workflow would have returned 1.
      expect(await handle.result()).toBe(2);
      expect(await update).toBe(2);
    });
  });

  it('a signal, an update, a fired timer and a completed activity in one workflow task are all seen', async () => {
    const taskQueue = id('four');
    const activityQueue = id('no-worker');
    const handle = await s.env.client.workflow.start(firstOfFour, { taskQueue, workflowId: id('four'), args: [activityQueue] });
    // The first task as the worker completes it (the SDK numbers its first timer "1"), so the
    // timer fires and the rest arrives while no worker is there.
    const task = await rawPoll(taskQueue);
    await svc().respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: task.taskToken,
      identity: 'raw-poller',
      commands: [
        {
          commandType: CommandType.COMMAND_TYPE_START_TIMER,
          startTimerCommandAttributes: { timerId: '1', startToFireTimeout: msToTs(50) },
        },
        {
          commandType: CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
          scheduleActivityTaskCommandAttributes: {
            activityId: 'never-run',
            activityType: { name: 'neverRun' },
            taskQueue: { name: activityQueue },
            scheduleToCloseTimeout: msToTs(60_000),
          },
        },
      ],
    });
    await s.env.client.activity.complete({ workflowId: handle.workflowId, activityId: 'never-run' }, undefined);
    await handle.signal(pingSignal);
    const update = handle.executeUpdate(pingUpdate, { updateId: 'ping' });
    await admitted(handle.workflowId, 'ping');
    await eventually(async () => eventTypes(await historyOf(handle)).includes('TIMER_FIRED'));
    await withWorker(taskQueue, async () => {
      expect(await handle.result()).toEqual([true, true, true, true]);
      await update;
    });
  });

  it('an update whose workflow task failed or timed out is delivered again with the next task', async () => {
    const taskQueue = id('redeliver');
    const handle = await s.env.client.workflow.start(returnsAtOnce, {
      taskQueue,
      workflowId: id('redeliver'),
      startDelay: '10000 days',
      workflowTaskTimeout: '1s',
    });
    const update = handle.executeUpdate(touchUpdate, { updateId: 'again' });
    await admitted(handle.workflowId, 'again');
    const first = await rawPoll(taskQueue);
    expect(first.messages?.map((m) => [m.protocolInstanceId, Number(m.eventId)])).toEqual([['again', 2]]);
    await svc().respondWorkflowTaskFailed({
      namespace: 'default',
      taskToken: first.taskToken,
      cause: WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE,
      identity: 'raw-poller',
    });
    // The second attempt's worker "dies": the task times out after its 1 s.
    const second = await rawPoll(taskQueue);
    expect(second.messages?.map((m) => m.protocolInstanceId)).toEqual(['again']);
    await eventually(async () => eventTypes(await historyOf(handle)).includes('WORKFLOW_TASK_TIMED_OUT'));
    await withWorker(taskQueue, async () => {
      expect(await handle.result()).toBe('touched');
      await update;
    });
    expect(eventTypes(await historyOf(handle)).filter((t) => t.startsWith('WORKFLOW_EXECUTION_UPDATE'))).toEqual([
      'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
    ]);
  });

  it('an update not yet accepted when its run continues as new goes to the next run', async () => {
    const taskQueue = id('moved');
    const handle = await s.env.client.workflow.start(bumps, { taskQueue, workflowId: id('moved') });
    const update = handle.executeUpdate(bumpUpdate, { updateId: 'moved' });
    await admitted(handle.workflowId, 'moved');
    const task = await rawPoll(taskQueue);
    expect(task.messages?.map((m) => m.protocolInstanceId)).toEqual(['moved']);
    // The worker continues as new without answering the update.
    await svc().respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: task.taskToken,
      identity: 'raw-poller',
      commands: [
        {
          commandType: CommandType.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
          continueAsNewWorkflowExecutionCommandAttributes: { workflowType: { name: 'bumps' }, taskQueue: { name: taskQueue } },
        },
      ],
    });
    await withWorker(taskQueue, async () => {
      expect(await update).toBe(1);
      expect(await handle.result()).toBe(1);
    });
    const firstRun = s.env.client.workflow.getHandle(handle.workflowId, task.workflowExecution!.runId!);
    expect(eventTypes(await historyOf(firstRun)).at(-1)).toBe('WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
    expect(eventTypes(await historyOf(handle))).toContain('WORKFLOW_EXECUTION_UPDATE_COMPLETED');
  });
});

describe('limits per run', () => {
  const updateRequest = (workflowId: string, updateId: string, name: string, args: unknown[] = []) => ({
    namespace: 'default',
    workflowExecution: { workflowId },
    request: {
      meta: { updateId },
      input: { name, args: { payloads: args.map((a) => defaultPayloadConverter.toPayload(a)) } },
    },
    waitPolicy: { lifecycleStage: Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED },
  });

  it(`refuses an update past ${MAX_IN_FLIGHT} in flight with RESOURCE_EXHAUSTED, Temporal's words`, async () => {
    const handle = await s.env.client.workflow.start(withNeverEndingUpdate, { taskQueue: s.taskQueue, workflowId: id('in-flight') });
    for (const updateId of ['u1', 'u2']) {
      await handle.startUpdate(neverEndingUpdate, { updateId, waitForStage: WorkflowUpdateStage.ACCEPTED });
    }
    expect(await grpcError(bare.workflowService.updateWorkflowExecution(updateRequest(handle.workflowId, 'u3', 'neverEnding')))).toEqual({
      code: 8,
      details: `limit on number of concurrent in-flight updates has been reached (${MAX_IN_FLIGHT})`,
    });
    // A request for an update the run already has is answered, limit or not.
    const again = await bare.workflowService.updateWorkflowExecution(updateRequest(handle.workflowId, 'u1', 'neverEnding'));
    expect(again.stage).toBe(Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED);
    await handle.terminate();
  });

  it(`refuses an update whose request would bring those in flight to ${MAX_IN_FLIGHT_BYTES} bytes`, async () => {
    const handle = await s.env.client.workflow.start(withNeverEndingUpdate, { taskQueue: s.taskQueue, workflowId: id('in-flight-bytes') });
    const big = updateRequest(handle.workflowId, 'big', 'neverEnding', ['x'.repeat(MAX_IN_FLIGHT_BYTES)]);
    expect(await grpcError(bare.workflowService.updateWorkflowExecution(big))).toEqual({
      code: 8,
      details: `limit on total payload size of in-flight updates has been reached (${MAX_IN_FLIGHT_BYTES} bytes)`,
    });
    await handle.terminate();
  });

  it('refuses updates while workflow tasks keep failing, and while a run that tried to close runs another task', async () => {
    const taskQueue = id('refusals');
    const failing = await s.env.client.workflow.start(bumps, { taskQueue, workflowId: id('failing') });
    for (let i = 0; i < 2; i++) {
      const task = await rawPoll(taskQueue);
      await svc().respondWorkflowTaskFailed({
        namespace: 'default',
        taskToken: task.taskToken,
        cause: WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE,
        identity: 'raw-poller',
      });
    }
    // The third attempt is scheduled.
    expect(await grpcError(bare.workflowService.updateWorkflowExecution(updateRequest(failing.workflowId, 'refused', 'bump')))).toEqual({
      code: 9,
      details: 'Unable to perform workflow execution update due to Workflow Task in failed state.',
    });
    await failing.terminate();

    const closing = await s.env.client.workflow.start(bumps, { taskQueue, workflowId: id('closing') });
    const first = await rawPoll(taskQueue);
    await closing.signal(bumpSignal);
    // The completion would close the run over the signal: refused (UNHANDLED_COMMAND), and the next task runs.
    await svc().respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: first.taskToken,
      identity: 'raw-poller',
      commands: [{ commandType: CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION, completeWorkflowExecutionCommandAttributes: {} }],
    });
    await rawPoll(taskQueue);
    expect(await grpcError(bare.workflowService.updateWorkflowExecution(updateRequest(closing.workflowId, 'late', 'bump')))).toEqual({
      code: 8,
      details: 'workflow operation can not be applied because workflow is closing',
    });
    await closing.terminate();
  });

  it(`refuses the update past ${MAX_TOTAL} (rejected ones not counted) with FAILED_PRECONDITION, suggesting continue-as-new before`, async () => {
    const handle = await s.env.client.workflow.start(counting, { taskQueue: s.taskQueue, workflowId: id('total') });
    const suggested: boolean[] = [];
    for (const n of [1, 2]) suggested.push(await handle.executeUpdate(countUpdate, { args: [n] }));
    await expect(handle.executeUpdate(countUpdate, { args: [-1] })).rejects.toThrow(WorkflowUpdateFailedError);
    for (const n of [3, 4]) suggested.push(await handle.executeUpdate(countUpdate, { args: [n] }));
    // history.maxTotalUpdates.suggestContinueAsNewThreshold (0.9): suggested from the 4th update on.
    expect(suggested).toEqual([false, false, false, true]);
    const refused = await grpcError(bare.workflowService.updateWorkflowExecution(updateRequest(handle.workflowId, 'fifth', 'count', [5])));
    expect(refused.code).toBe(9);
    expect(refused.details).toMatch(
      new RegExp(`^The limit on the total number of distinct updates in this workflow has been reached \\(${MAX_TOTAL}\\)\\. Make sure`),
    );
    await handle.terminate();
  });
});

describe('update-with-start failures', () => {
  it('a workflow id over the length limit: INVALID_ARGUMENT for the update and the start', async () => {
    const startWorkflowOperation = new WithStartWorkflowOperation(withNeverEndingUpdate, {
      workflowId: randomUUID().repeat(30),
      taskQueue: s.taskQueue,
      workflowIdConflictPolicy: 'FAIL',
    });
    const update = s.env.client.workflow.startUpdateWithStart(neverEndingUpdate, { waitForStage: 'ACCEPTED', startWorkflowOperation });
    const refusal = { code: 3, message: 'WorkflowId exceeds maximum allowed length (1080/1000)' };
    await Promise.all([update, startWorkflowOperation.workflowHandle()].map((failed) => expect(failed).rejects.toMatchObject(refusal)));
  });

  it(`the update past ${MAX_IN_FLIGHT} in flight on an existing run (USE_EXISTING): RESOURCE_EXHAUSTED`, async () => {
    const workflowId = id('uws-limit');
    const updateWithStart = () => {
      const startWorkflowOperation = new WithStartWorkflowOperation(withNeverEndingUpdate, {
        workflowId,
        taskQueue: s.taskQueue,
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      return {
        update: bare.workflow.startUpdateWithStart(neverEndingUpdate, { waitForStage: 'ACCEPTED', startWorkflowOperation }),
        started: startWorkflowOperation.workflowHandle(),
      };
    };
    for (let i = 0; i < MAX_IN_FLIGHT; i++) await updateWithStart().update;
    const refused = updateWithStart();
    await Promise.all([refused.update, refused.started].map((failed) => expect(failed).rejects.toMatchObject({ code: 8 })));
    await s.env.client.workflow.getHandle(workflowId).terminate();
  });
});

describe('a workflow that ends while an update handler runs', () => {
  /** Starts `endsWithHandler`, its update and (for `cancelled`) a cancellation, all delivered in its first task. */
  async function endWith(taskQueue: string, ending: Ending, wait: boolean) {
    const handle = await s.env.client.workflow.start(endsWithHandler, { taskQueue, workflowId: id(ending), args: [ending, wait] });
    const update = handle.executeUpdate(slowUpdate, { updateId: 'slow' }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    await admitted(handle.workflowId, 'slow');
    if (ending === 'cancelled') await handle.cancel();
    return { handle, update };
  }

  it('the caller gets AcceptedUpdateCompletedWorkflow on return, failure, continue-as-new and cancellation (and the SDK warns), the result when the workflow waited', async () => {
    const taskQueue = id('endings');
    const runs = await Promise.all([
      endWith(taskQueue, 'return', false),
      endWith(taskQueue, 'fail', false),
      endWith(taskQueue, 'continue-as-new', false),
      endWith(taskQueue, 'cancelled', false),
      endWith(taskQueue, 'return', true),
      endWith(taskQueue, 'continue-as-new', true),
    ]);
    const outcomes = await withWorker(taskQueue, () =>
      Promise.all(
        runs.map(async ({ handle, update }) => {
          const outcome = await update;
          const closed = await handle.result().then(
            (r) => r,
            (e: Error) => e.constructor.name,
          );
          // The SDK's warning, which Temporal's tests expect on return, continue-as-new and a cancellation the handler outlives.
          const warned = (workflowWarnings.get(handle.workflowId) ?? []).some((m) =>
            /^\[TMPRL1102\] Workflow finished while an update handler was still running\./.test(m),
          );
          if ('result' in outcome) return [outcome.result, closed, warned];
          const error = outcome.error as WorkflowUpdateFailedError;
          expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
          expect(error.cause).toBeInstanceOf(ApplicationFailure);
          expect((error.cause as ApplicationFailure).message).toBe(
            'Workflow Update failed because the Workflow completed before the Update completed.',
          );
          return [(error.cause as ApplicationFailure).type, closed, warned];
        }),
      ),
    );
    expect(outcomes).toEqual([
      ['AcceptedUpdateCompletedWorkflow', 'returned', true],
      ['AcceptedUpdateCompletedWorkflow', 'WorkflowFailedError', false],
      ['AcceptedUpdateCompletedWorkflow', 'next run', true],
      ['AcceptedUpdateCompletedWorkflow', 'WorkflowFailedError', true],
      ['slow done', 'returned', false],
      ['slow done', 'next run', false],
    ]);
  });
});
