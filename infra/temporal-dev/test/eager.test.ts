// Eager workflow start and eager activity dispatch: through the SDK (a client sharing the worker's
// NativeConnection; activities scheduled by a worker that can run them) and as raw calls.
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, grpcError, type Suite, setupSuite, startWorker, teardownSuite } from './helpers.ts';
import { activitiesInSequence, greeting } from './workflows/index.ts';

let s: Suite;
beforeAll(async () => {
  s = await setupSuite('local', 'eager', { greet: async (name: string) => `Hello, ${name}!` });
});
afterAll(() => teardownSuite(s));

const id = (prefix: string) => `${prefix}-${randomUUID()}`;
const payloads = (...values: unknown[]) => ({ payloads: values.map((v) => defaultPayloadConverter.toPayload(v)) });
const svc = () => s.env.client.workflowService;
const { CommandType } = temporal.api.enums.v1;

describe('eager workflow start', () => {
  it("hands the first workflow task to a worker sharing the client's connection", async () => {
    const client = new Client({ connection: s.env.nativeConnection, identity: 'eager-starter' });
    const handle = await client.workflow.start(greeting, {
      taskQueue: s.taskQueue,
      workflowId: id('eager'),
      args: ['eager'],
      requestEagerStart: true,
      // Were the eager task lost, its retry would come an hour later.
      workflowTaskTimeout: '1h',
    });
    expect(handle.eagerlyStarted).toBe(true);
    expect(await handle.result()).toBe('Hello, eager!');
    const events = (await handle.fetchHistory()).events!;
    expect(eventTypes(events.slice(0, 4))).toEqual([
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_COMPLETED',
    ]);
    expect(events[2]!.workflowTaskStartedEventAttributes!.identity).toBe('eager-starter');
  });

  it('is not eager when no worker of that task queue shares the connection', async () => {
    const client = new Client({ connection: s.env.nativeConnection });
    const handle = await client.workflow.start(greeting, {
      taskQueue: id('no-worker'),
      workflowId: id('not-eager'),
      args: ['x'],
      requestEagerStart: true,
    });
    expect(handle.eagerlyStarted).toBe(false);
    expect(eventTypes((await handle.fetchHistory()).events)).toEqual(['WORKFLOW_EXECUTION_STARTED', 'WORKFLOW_TASK_SCHEDULED']);
    await handle.terminate();
  });

  it('as raw calls: the started task, again for a retried request, none for an existing run or a delayed start', async () => {
    const workflowId = id('eager-raw');
    const request = {
      namespace: 'default',
      workflowId,
      workflowType: { name: 'greeting' },
      taskQueue: { name: id('no-worker') },
      input: payloads('raw'),
      identity: 'raw-starter',
      requestId: randomUUID(),
      requestEagerExecution: true,
    };
    const first = await svc().startWorkflowExecution(request);
    const task = first.eagerWorkflowTask!;
    expect(task).toMatchObject({ workflowExecution: { workflowId, runId: first.runId }, attempt: 1 });
    expect(Number(task.startedEventId)).toBe(3);
    expect(eventTypes(task.history!.events)).toEqual(['WORKFLOW_EXECUTION_STARTED', 'WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED']);
    expect(task.history!.events![2]!.workflowTaskStartedEventAttributes).toMatchObject({
      identity: 'raw-starter',
      requestId: request.requestId,
    });

    const retried = await svc().startWorkflowExecution(request);
    expect(retried).toMatchObject({ runId: first.runId, started: true });
    expect(Buffer.from(retried.eagerWorkflowTask!.taskToken!)).toEqual(Buffer.from(task.taskToken!));
    expect(await grpcError(svc().startWorkflowExecution({ ...request, requestId: randomUUID() }))).toMatchObject({ code: 6 });
    const useExisting = {
      ...request,
      requestId: randomUUID(),
      workflowIdConflictPolicy: temporal.api.enums.v1.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
    };
    for (const attempt of [1, 2]) {
      const existing = await svc().startWorkflowExecution(useExisting);
      expect(existing, `attempt ${attempt}`).toMatchObject({ runId: first.runId, started: false });
      expect(existing.eagerWorkflowTask).toBeNull();
    }

    await svc().respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: task.taskToken,
      identity: 'raw-starter',
      commands: [
        {
          commandType: CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
          completeWorkflowExecutionCommandAttributes: { result: payloads('done') },
        },
      ],
    });
    expect(await s.env.client.workflow.getHandle(workflowId).result()).toBe('done');
    // Its first workflow task is over: a retried request gets no task.
    expect((await svc().startWorkflowExecution(request)).eagerWorkflowTask).toBeNull();

    const delayedId = id('eager-delayed');
    const delayed = await svc().startWorkflowExecution({
      ...request,
      workflowId: delayedId,
      requestId: randomUUID(),
      workflowStartDelay: msToTs('1h'),
    });
    expect(delayed.eagerWorkflowTask).toBeNull();
    const delayedHandle = s.env.client.workflow.getHandle(delayedId);
    expect(eventTypes((await delayedHandle.fetchHistory()).events)).toEqual(['WORKFLOW_EXECUTION_STARTED']);
    await delayedHandle.terminate();
  });

  it('is announced in the namespace and system capabilities', async () => {
    const { namespaceInfo } = await svc().describeNamespace({ namespace: 'default' });
    expect(namespaceInfo!.capabilities!.eagerWorkflowStart).toBe(true);
    const { capabilities } = await svc().getSystemInfo({});
    expect(capabilities!.eagerWorkflowStart).toBe(true);
  });
});

describe('eager activities', () => {
  it('runs the activities a worker schedules on that worker, not on another one polling the queue', async () => {
    const taskQueue = id('eager-activities');
    const otherConnection = await NativeConnection.connect({ address: s.env.address });
    const activityOnly = await startWorker(s.env, {
      taskQueue,
      connection: otherConnection,
      identity: 'activity-worker',
      workflowBundle: undefined,
      activities: { whichWorker: async () => 'activity worker' },
    });
    const workflowWorker = await startWorker(s.env, {
      taskQueue,
      identity: 'workflow-worker',
      activities: { whichWorker: async () => 'workflow worker' },
    });
    try {
      // Without eager dispatch the two workers would share the activities about evenly.
      const handle = await s.env.client.workflow.start(activitiesInSequence, { taskQueue, workflowId: id('eager-activities'), args: [20] });
      expect(await handle.result()).toEqual(Array.from({ length: 20 }, () => 'workflow worker'));
      const started = (await handle.fetchHistory()).events!.flatMap((e) => e.activityTaskStartedEventAttributes ?? []);
      expect(started.map((a) => [a.identity, a.attempt])).toEqual(Array.from({ length: 20 }, () => ['workflow-worker', 1]));
    } finally {
      await workflowWorker.stop();
      await activityOnly.stop();
      await otherConnection.close();
    }
  });

  it('as raw calls: returns exactly the activities asked for, started on the completing worker, and none when the run closes', async () => {
    const taskQueue = id('eager-raw');
    const workflowId = id('eager-activities-raw');
    await svc().startWorkflowExecution({
      namespace: 'default',
      workflowId,
      workflowType: { name: 'driven-by-the-test' },
      taskQueue: { name: taskQueue },
      requestId: randomUUID(),
    });
    const pollWorkflowTask = () =>
      svc().pollWorkflowTaskQueue({ namespace: 'default', taskQueue: { name: taskQueue }, identity: 'raw-worker' });
    const schedule = (activityId: string, eager: boolean) => ({
      commandType: CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
      scheduleActivityTaskCommandAttributes: {
        activityId,
        activityType: { name: 'work' },
        taskQueue: { name: taskQueue },
        input: payloads(activityId),
        startToCloseTimeout: msToTs('1 minute'),
        requestEagerExecution: eager,
      },
    });
    const first = await pollWorkflowTask();
    const completed = await svc().respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: first.taskToken,
      identity: 'raw-worker',
      commands: [schedule('a1', true), schedule('a2', false), schedule('a3', true)],
    });
    const eager = completed.activityTasks!;
    expect(eager.map((t) => [t.activityId, t.attempt])).toEqual([
      ['a1', 1],
      ['a3', 1],
    ]);
    expect(eager[0]).toMatchObject({ workflowExecution: { workflowId }, activityType: { name: 'work' }, workflowNamespace: 'default' });
    expect(defaultPayloadConverter.fromPayload(eager[0]!.input!.payloads![0]!)).toBe('a1');
    const polled = await svc().pollActivityTaskQueue({ namespace: 'default', taskQueue: { name: taskQueue }, identity: 'activity-poller' });
    expect(polled.activityId).toBe('a2');
    const pending = await s.env.client.workflow.getHandle(workflowId).describe();
    expect(pending.raw.pendingActivities!.map((a) => [a.activityId, a.state])).toEqual([
      ['a1', temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED],
      ['a2', temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED],
      ['a3', temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED],
    ]);

    await svc().respondActivityTaskCompleted({ namespace: 'default', taskToken: eager[0]!.taskToken, result: payloads('one') });
    const second = await pollWorkflowTask();
    const events = second.history!.events!;
    const startedEvent = events.find((e) => e.activityTaskStartedEventAttributes)!;
    expect(startedEvent.activityTaskStartedEventAttributes).toMatchObject({ identity: 'raw-worker', attempt: 1 });
    // Scheduled and closed by the same completion: not handed out.
    const closing = await svc().respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: second.taskToken,
      identity: 'raw-worker',
      commands: [
        schedule('a4', true),
        { commandType: CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION, completeWorkflowExecutionCommandAttributes: {} },
      ],
    });
    expect(closing.activityTasks).toEqual([]);
    expect((await s.env.client.workflow.getHandle(workflowId).describe()).status.name).toBe('COMPLETED');
  });
});
