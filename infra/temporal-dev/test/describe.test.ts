// What WorkflowHandle.describe and workflowInfo() show, user metadata (summaries and details) on
// workflows, activities, timers and children, priorities and their dispatch order, and typed
// custom search attributes end to end (set, upserted, read, filtered, refused).
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { defaultPayloadConverter, defineSearchAttributeKey, type Priority, type SearchAttributes } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, eventually, grpcError, type Suite, setupSuite, startWorker, teardownSuite } from './helpers.ts';
import {
  addSignal,
  annotated,
  buildIdProbe,
  buildIdQuery,
  CustomInt,
  CustomKeyword,
  goOnSignal,
  type InfoSnapshot,
  infoQuery,
  lineage,
  prioritizedActivities,
  runActivity,
  upsertTyped,
  waitForever,
} from './workflows/index.ts';

const { HistoryEvent } = temporal.api.history.v1;
const { PendingWorkflowTaskState, TaskQueueKind, WorkflowTaskFailedCause } = temporal.api.enums.v1;

const CustomDouble = defineSearchAttributeKey('CustomDoubleField', 'DOUBLE');
const CustomBool = defineSearchAttributeKey('CustomBoolField', 'BOOL');
const CustomDatetime = defineSearchAttributeKey('CustomDatetimeField', 'DATETIME');
const CustomText = defineSearchAttributeKey('CustomTextField', 'TEXT');
const CustomKeywordList = defineSearchAttributeKey('CustomKeywordListField', 'KEYWORD_LIST');

const activityPriorities: Array<Priority | undefined> = [];
let s: Suite;
beforeAll(async () => {
  const activities = {
    priorityOf: async () => {
      activityPriorities.push(Context.current().info.priority);
      return 'noted';
    },
    alwaysFails: async () => {
      throw new Error('not yet');
    },
  };
  s = await setupSuite('local', 'describe', activities, {
    searchAttributes: [CustomKeyword, CustomInt, CustomDouble, CustomBool, CustomDatetime, CustomText, CustomKeywordList],
  });
});
afterAll(() => teardownSuite(s));

const id = (prefix: string) => `${prefix}-${randomUUID()}`;
const summaryOf = (metadata: temporal.api.sdk.v1.IUserMetadata | null | undefined) => ({
  summary: metadata?.summary ? defaultPayloadConverter.fromPayload(metadata.summary) : undefined,
  details: metadata?.details ? defaultPayloadConverter.fromPayload(metadata.details) : undefined,
});
const seconds = (d: { seconds?: unknown } | null | undefined) => Number(d?.seconds ?? 0);
const millis = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

describe('describe', () => {
  it('shows what the SDK reads of a running parent and its child, with their metadata and priorities', async () => {
    const workflowId = id('annotated');
    const handle = await s.env.client.workflow.start(annotated, {
      taskQueue: s.taskQueue,
      workflowId,
      memo: { owner: 'tests' },
      typedSearchAttributes: [
        { key: CustomKeyword, value: 'kw' },
        { key: CustomInt, value: 7 },
      ],
      staticSummary: 'a summary',
      staticDetails: 'some *details*',
      priority: { priorityKey: 2, fairnessKey: 'tenant-a' },
      workflowRunTimeout: '1 hour',
      workflowExecutionTimeout: '2 hours',
      workflowTaskTimeout: '5s',
    });
    // Idle once the task after the child's start has completed.
    const history = await eventually(async () => {
      const h = await handle.fetchHistory();
      const types = eventTypes(h.events);
      return types.includes('CHILD_WORKFLOW_EXECUTION_STARTED') && types.at(-1) === 'WORKFLOW_TASK_COMPLETED' && h;
    });
    const events = history.events ?? [];
    const d = await handle.describe();

    expect(d).toMatchObject({ type: 'annotated', workflowId, runId: handle.firstExecutionRunId, taskQueue: s.taskQueue });
    expect(d.status.name).toBe('RUNNING');
    expect(d.memo).toEqual({ owner: 'tests' });
    expect(d.typedSearchAttributes.get(CustomKeyword)).toBe('kw');
    expect(d.typedSearchAttributes.get(CustomInt)).toBe(7);
    expect(await d.staticSummary()).toBe('a summary');
    expect(await d.staticDetails()).toBe('some *details*');
    expect(d.priority).toMatchObject({ priorityKey: 2, fairnessKey: 'tenant-a' });
    expect(d.historyLength).toBe(events.length);
    // Temporal's history size: the events as encoded protobuf.
    expect(d.historySize).toBe(events.reduce((n, e) => n + HistoryEvent.encode(e).finish().length, 0));
    expect(d.rootExecution).toEqual({ workflowId, runId: handle.firstExecutionRunId });
    expect(d.parentExecution).toBeUndefined();
    expect(d.executionTime).toEqual(d.startTime);
    expect(d.closeTime).toBeUndefined();

    const raw = d.raw;
    const info = raw.workflowExecutionInfo!;
    expect(Number(info.stateTransitionCount)).toBeGreaterThanOrEqual(5);
    expect(Number(info.stateTransitionCount)).toBeLessThanOrEqual(events.length * 2);
    expect(info.mostRecentWorkerVersionStamp).toBeFalsy();
    expect(raw.executionConfig?.taskQueue).toMatchObject({ name: s.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL });
    expect(seconds(raw.executionConfig?.workflowRunTimeout)).toBe(3600);
    expect(seconds(raw.executionConfig?.workflowExecutionTimeout)).toBe(7200);
    expect(seconds(raw.executionConfig?.defaultWorkflowTaskTimeout)).toBe(5);
    expect(raw.pendingWorkflowTask).toBeFalsy();
    expect(raw.callbacks ?? []).toEqual([]);
    expect(raw.pendingActivities ?? []).toEqual([]);
    expect(raw.pendingChildren?.map((c) => c.workflowId)).toEqual([`${workflowId}-child`]);
    const started = d.startTime.getTime();
    expect(millis(raw.workflowExtendedInfo?.runExpirationTime)).toBe(started + 3600_000);
    // The execution timeout counts from the request, a moment before the run's start time.
    expect(started + 7200_000 - millis(raw.workflowExtendedInfo?.executionExpirationTime)).toBeLessThan(50);
    expect(millis(raw.workflowExtendedInfo?.originalStartTime)).toBe(started);
    expect(raw.workflowExtendedInfo?.cancelRequested).toBeFalsy();

    // The child: its own summary and details, the parent's fairness key under its own priority key.
    const child = await s.env.client.workflow.getHandle(`${workflowId}-child`).describe();
    expect(await child.staticSummary()).toBe('the child');
    expect(await child.staticDetails()).toBe('waits *forever*');
    expect(child.priority).toMatchObject({ priorityKey: 4, fairnessKey: 'tenant-a' });
    expect(child.parentExecution).toEqual({ workflowId, runId: handle.firstExecutionRunId });
    expect(child.rootExecution).toEqual({ workflowId, runId: handle.firstExecutionRunId });

    // History keeps each command's summary; the activity ran with its key and the workflow's fairness key.
    const byType = (type: string) => events.find((e) => eventTypes([e])[0] === type)!;
    expect(summaryOf(byType('WORKFLOW_EXECUTION_STARTED').userMetadata)).toEqual({ summary: 'a summary', details: 'some *details*' });
    expect(byType('WORKFLOW_EXECUTION_STARTED').workflowExecutionStartedEventAttributes?.priority).toMatchObject({ priorityKey: 2 });
    expect(summaryOf(byType('ACTIVITY_TASK_SCHEDULED').userMetadata).summary).toBe('reports its priority');
    expect(byType('ACTIVITY_TASK_SCHEDULED').activityTaskScheduledEventAttributes?.priority).toMatchObject({ priorityKey: 1 });
    expect(summaryOf(byType('TIMER_STARTED').userMetadata).summary).toBe('short nap');
    expect(summaryOf(byType('START_CHILD_WORKFLOW_EXECUTION_INITIATED').userMetadata)).toEqual({
      summary: 'the child',
      details: 'waits *forever*',
    });
    expect(activityPriorities.at(-1)).toMatchObject({ priorityKey: 1, fairnessKey: 'tenant-a' });

    // workflowInfo() inside the workflow, and the current details it set.
    const seen: InfoSnapshot = await handle.query(infoQuery);
    expect(seen.priority).toMatchObject({ priorityKey: 2, fairnessKey: 'tenant-a' });
    expect(seen.historyLength).toBeGreaterThan(10);
    expect(seen.historySize).toBeGreaterThan(0);
    expect(seen.continueAsNewSuggested).toBe(false);
    expect(seen.typedSearchAttributes).toEqual(
      expect.arrayContaining([
        { key: { name: 'CustomKeywordField', type: 'KEYWORD' }, value: 'kw' },
        { key: { name: 'CustomIntField', type: 'INT' }, value: 7 },
      ]),
    );
    const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe('waiting for **nothing**');

    // The Web UI's Relationships tab: the tree by root, and the children by parent, in list and count.
    const ids = async (query: string) => {
      const found: string[] = [];
      for await (const w of s.env.client.workflow.list({ query })) found.push(w.workflowId);
      return found.sort();
    };
    expect(await ids(`RootWorkflowId = "${workflowId}" AND RootRunId = "${handle.firstExecutionRunId}"`)).toEqual(
      [workflowId, `${workflowId}-child`].sort(),
    );
    expect(await ids(`ParentWorkflowId = "${workflowId}" AND ParentRunId = "${handle.firstExecutionRunId}"`)).toEqual([
      `${workflowId}-child`,
    ]);
    expect(await ids(`WorkflowId = "${workflowId}" AND ParentWorkflowId IS NULL`)).toEqual([workflowId]);
    const tree = await s.env.client.workflowService.countWorkflowExecutions({
      namespace: 'default',
      query: `RootWorkflowId = "${workflowId}" GROUP BY ExecutionStatus`,
    });
    expect(Number(tree.count)).toBe(2);
    await handle.terminate();
  });

  it("reports a pending activity's next retry in the future while it backs off", async () => {
    const handle = await s.env.client.workflow.start(runActivity, {
      taskQueue: s.taskQueue,
      workflowId: id('retrying'),
      args: ['alwaysFails', { startToCloseTimeout: '10s', retry: { initialInterval: '1 hour' } }, []],
    });
    const pending = await eventually(async () => {
      const a = (await handle.describe()).raw.pendingActivities?.[0];
      return a?.attempt === 2 && a;
    });
    expect(pending.state).toBe(temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED);
    expect(millis(pending.scheduledTime) - Date.now()).toBeGreaterThan(3500_000);
    expect(millis(pending.nextAttemptScheduleTime)).toBe(millis(pending.scheduledTime));
    await handle.terminate();
  });

  it('shows a scheduled workflow task, then the close time and duration of a closed run', async () => {
    const handle = await s.env.client.workflow.start(waitForever, { taskQueue: `nobody-polls-${randomUUID()}`, workflowId: id('pending') });
    const before = await handle.describe();
    expect(before.raw.pendingWorkflowTask).toMatchObject({
      state: PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED,
      attempt: 1,
    });
    const scheduled = millis(before.raw.pendingWorkflowTask?.scheduledTime) - before.startTime.getTime();
    expect(scheduled).toBeGreaterThanOrEqual(0);
    expect(scheduled).toBeLessThan(1000);
    expect(before.raw.pendingWorkflowTask?.startedTime).toBeFalsy();
    expect(before.raw.workflowExtendedInfo?.runExpirationTime).toBeFalsy();
    await handle.cancel();
    expect((await handle.describe()).raw.workflowExtendedInfo?.cancelRequested).toBe(true);
    await handle.terminate();
    const after = await handle.describe();
    expect(after.status.name).toBe('TERMINATED');
    expect(after.closeTime!.getTime()).toBeGreaterThanOrEqual(after.startTime.getTime());
    expect(after.raw.workflowExecutionInfo?.executionDuration).toBeTruthy();
    expect(after.raw.pendingWorkflowTask).toBeFalsy();
    // ExecutionDuration is searchable, in nanoseconds or as a duration (the Web UI's filter), unset while running.
    const count = async (query: string) =>
      Number((await s.env.client.workflowService.countWorkflowExecutions({ namespace: 'default', query })).count);
    const self = `WorkflowId = "${handle.workflowId}"`;
    expect(await count(`${self} AND ExecutionDuration >= 0`)).toBe(1);
    expect(await count(`${self} AND ExecutionDuration < "1h"`)).toBe(1);
    expect(await count(`${self} AND ExecutionDuration > "01:00:00"`)).toBe(0);
    expect(await count(`${self} AND ExecutionDuration IS NULL`)).toBe(0);
    expect(await count(`WorkflowId = "${handle.workflowId}-none" OR (${self} AND ExecutionDuration < 3600000000000)`)).toBe(1);
  });
});

describe('workflow info, build ids and counts', () => {
  it('names the root only in a child, and the original run id in each run', async () => {
    const workflowId = id('lineage');
    const handle = await s.env.client.workflow.start(lineage, { taskQueue: s.taskQueue, workflowId });
    const [parent, child] = await handle.result();
    // As Temporal: a root run's started event names no root (the SDK's info.root is unset).
    expect(parent).toEqual({ originalExecutionRunId: handle.firstExecutionRunId, runId: handle.firstExecutionRunId });
    expect(child).toEqual({
      root: { workflowId, runId: handle.firstExecutionRunId },
      parent: workflowId,
      originalExecutionRunId: child!.runId,
      runId: child!.runId,
    });
    // Describe still shows a root run as its own root.
    expect((await handle.describe()).raw.workflowExecutionInfo?.rootExecution).toEqual({ workflowId, runId: handle.firstExecutionRunId });
  });

  it("keeps each task's build id in history, where a replaying worker's currentBuildId comes from, and in BuildIds", async () => {
    const taskQueue = id('build-ids');
    const first = await startWorker(s.env, { taskQueue, buildId: '1.0' });
    const handle = await s.env.client.workflow.start(buildIdProbe, { taskQueue, workflowId: id('build-id') });
    try {
      expect(await handle.query(buildIdQuery)).toBe('1.0');
    } finally {
      await first.stop();
    }
    const second = await startWorker(s.env, { taskQueue, buildId: '1.1' });
    try {
      // Replayed by the new worker: the last task was 1.0's.
      expect(await handle.query(buildIdQuery)).toBe('1.0');
      await handle.signal(goOnSignal);
      await eventually(async () => (await handle.query(buildIdQuery)) === '1.1');
    } finally {
      await second.stop();
    }
    const completed = (await handle.fetchHistory()).events!.filter((e) => e.workflowTaskCompletedEventAttributes);
    expect(completed.map((e) => e.workflowTaskCompletedEventAttributes!.workerVersion?.buildId)).toEqual(['1.0', '1.1']);
    expect((await handle.describe()).searchAttributes.BuildIds).toEqual(['unversioned', 'unversioned:1.0', 'unversioned:1.1']);
    expect(await s.env.client.workflow.count(`WorkflowId = '${handle.workflowId}' AND BuildIds = 'unversioned:1.1'`)).toEqual({
      count: 1,
      groups: [],
    });
    await handle.terminate();
  });

  it('counts by status in status order after runs changed state', async () => {
    const taskQueue = id('count-groups');
    const running = await s.env.client.workflow.start(waitForever, { taskQueue, workflowId: id('running') });
    const ended = await s.env.client.workflow.start(waitForever, { taskQueue, workflowId: id('ended') });
    await ended.terminate();
    await running.signal(addSignal, 'a change of state that is no close');
    expect(await s.env.client.workflow.count(`TaskQueue = '${taskQueue}' GROUP BY ExecutionStatus`)).toEqual({
      count: 2,
      groups: [
        { count: 1, groupValues: [['Running']] },
        { count: 1, groupValues: [['Terminated']] },
      ],
    });
    await running.terminate();
  });
});

describe('priorities', () => {
  it('hands out a backlog by priority key, lower first, the default (3) after an explicit 3', async () => {
    const activityQueue = `prioritized-${randomUUID()}`;
    const handle = await s.env.client.workflow.start(prioritizedActivities, {
      taskQueue: s.taskQueue,
      workflowId: id('priorities'),
      args: [activityQueue, [5, 3, 1, 0]],
    });
    await eventually(async () => (await handle.describe()).raw.pendingActivities?.length === 4);
    const order: string[] = [];
    const worker = await Worker.create({
      connection: s.env.nativeConnection,
      taskQueue: activityQueue,
      activities: {
        record: async (name: string) => {
          order.push(name);
          return name;
        },
      },
      maxConcurrentActivityTaskExecutions: 1,
    });
    await worker.runUntil(handle.result());
    expect(order).toEqual(['key 1', 'key 3', 'key 0', 'key 5']);
  });
});

describe('typed search attributes', () => {
  const all = [
    { key: CustomKeyword, value: 'prefix-kw' },
    { key: CustomInt, value: 7 },
    { key: CustomDouble, value: 1.5 },
    { key: CustomBool, value: true },
    { key: CustomDatetime, value: new Date('2024-05-06T07:08:09.000Z') },
    { key: CustomText, value: 'The quick brown fox' },
    { key: CustomKeywordList, value: ['a', 'b'] },
  ];

  it('keeps each type through start, describe, workflowInfo, upserts, list and count', async () => {
    const workflowId = id('typed');
    const handle = await s.env.client.workflow.start(upsertTyped, {
      taskQueue: s.taskQueue,
      workflowId,
      typedSearchAttributes: all,
      args: [
        [
          ['CustomIntField', 'INT', 8],
          ['CustomTextField', 'TEXT', null],
          ['CustomKeywordListField', 'KEYWORD_LIST', ['b', 'c']],
          ['CustomDatetimeField', 'DATETIME', '2025-01-01T00:00:00.000Z'],
        ],
      ],
    });
    const described = await handle.describe();
    for (const { key, value } of all) expect(described.typedSearchAttributes.get(key)).toEqual(value);
    const inside: InfoSnapshot = await handle.query(infoQuery);
    expect(inside.typedSearchAttributes).toHaveLength(all.length);

    const count = async (query: string) => (await s.env.client.workflow.count(`WorkflowId = '${workflowId}' AND ${query}`)).count;
    const matching = [
      `CustomKeywordField = 'prefix-kw'`,
      `CustomKeywordField STARTS_WITH 'prefix'`,
      'CustomIntField = 7',
      'CustomIntField BETWEEN 5 AND 9',
      'CustomDoubleField > 1.2',
      'CustomDoubleField IN (1.5, 2.5)',
      'CustomBoolField = true',
      `CustomDatetimeField > '2024-05-06T07:00:00Z'`,
      `CustomDatetimeField BETWEEN '2024-01-01T00:00:00Z' AND '2024-12-31T00:00:00Z'`,
      `CustomTextField = 'quick FOX'`,
      `CustomKeywordListField = 'b'`,
      `CustomKeywordListField IN ('z', 'a')`,
      `CustomKeywordListField != 'z'`,
    ];
    for (const query of matching) expect(await count(query), query).toBe(1);
    const notMatching = [
      'CustomIntField > 7',
      'CustomBoolField = false',
      `CustomTextField = 'slow fox'`,
      `CustomKeywordListField = 'c'`,
      `CustomKeywordListField != 'a'`,
      `CustomKeywordListField NOT IN ('a')`,
    ];
    for (const query of notMatching) expect(await count(query), query).toBe(0);

    await handle.signal(addSignal, 'upsert now');
    const updated = await eventually(async () => {
      const d = await handle.describe();
      return d.typedSearchAttributes.get(CustomInt) === 8 && d;
    });
    expect(updated.typedSearchAttributes.get(CustomText)).toBeUndefined();
    expect(updated.typedSearchAttributes.get(CustomKeywordList)).toEqual(['b', 'c']);
    expect(updated.typedSearchAttributes.get(CustomDatetime)).toEqual(new Date('2025-01-01T00:00:00.000Z'));
    expect(updated.typedSearchAttributes.get(CustomKeyword)).toBe('prefix-kw');
    const afterUpsert: InfoSnapshot = await handle.query(infoQuery);
    expect(afterUpsert.typedSearchAttributes).toEqual(
      expect.arrayContaining([
        { key: { name: 'CustomIntField', type: 'INT' }, value: 8 },
        { key: { name: 'CustomKeywordListField', type: 'KEYWORD_LIST' }, value: ['b', 'c'] },
      ]),
    );
    expect(await count('CustomTextField IS NULL')).toBe(1);
    expect(await count(`CustomKeywordListField = 'c' AND CustomIntField = 8 AND CustomDatetimeField > '2024-12-31T00:00:00Z'`)).toBe(1);
    const listed = [];
    for await (const w of s.env.client.workflow.list({ query: `WorkflowId = '${workflowId}' AND CustomIntField >= 8` })) listed.push(w);
    expect(listed.map((w) => w.typedSearchAttributes.get(CustomKeywordList))).toEqual([['b', 'c']]);
    await handle.terminate();
  });

  it('gives values set through the untyped API their registered type', async () => {
    const handle = await s.env.client.workflow.start(upsertTyped, {
      taskQueue: s.taskQueue,
      workflowId: id('untyped'),
      searchAttributes: { CustomIntField: [3], CustomDatetimeField: [new Date('2024-01-02T03:04:05.000Z')] },
      args: [[]],
    });
    const d = await handle.describe();
    expect(d.typedSearchAttributes.get(CustomInt)).toBe(3);
    expect(d.typedSearchAttributes.get(CustomDatetime)).toEqual(new Date('2024-01-02T03:04:05.000Z'));
    const inside: InfoSnapshot = await handle.query(infoQuery);
    expect(inside.typedSearchAttributes).toEqual(expect.arrayContaining([{ key: { name: 'CustomIntField', type: 'INT' }, value: 3 }]));
    const query = `WorkflowId = '${handle.workflowId}' AND CustomDatetimeField = '2024-01-02T03:04:05Z'`;
    expect((await s.env.client.workflow.count(query)).count).toBe(1);
    await handle.terminate();
  });

  it('refuses unregistered names, values of the wrong type and system attributes, at start and on upsert', async () => {
    const start = (searchAttributes: SearchAttributes) =>
      grpcError(s.env.client.workflow.start(waitForever, { taskQueue: s.taskQueue, workflowId: id('refused'), searchAttributes }));
    expect(await start({ NotRegistered: ['x'] })).toEqual({ code: 3, details: 'search attribute NotRegistered is not defined' });
    expect(await start({ CustomIntField: ['seven'] })).toEqual({
      code: 3,
      details: 'invalid value for search attribute CustomIntField of type Int: [seven]',
    });
    expect(await start({ CustomIntField: [1, 2] })).toMatchObject({ code: 3 });
    expect(await start({ CustomKeywordListField: [1] })).toMatchObject({ code: 3 });
    expect(await start({ CustomDatetimeField: ['yesterday'] })).toMatchObject({ code: 3 });
    expect(await start({ WorkflowId: ['mine'] })).toEqual({ code: 3, details: "WorkflowId attribute can't be set in SearchAttributes" });
    // A typed key of another type than the registered one.
    const mistyped = s.env.client.workflow.start(waitForever, {
      taskQueue: s.taskQueue,
      workflowId: id('mistyped'),
      typedSearchAttributes: [{ key: defineSearchAttributeKey('CustomIntField', 'KEYWORD'), value: 'abc' }],
    });
    expect(await grpcError(mistyped)).toEqual({ code: 3, details: 'invalid value for search attribute CustomIntField of type Int: abc' });

    // In a workflow: the task fails with BAD_SEARCH_ATTRIBUTES; its retry is refused and left to time out.
    const handle = await s.env.client.workflow.start(upsertTyped, {
      taskQueue: s.taskQueue,
      workflowId: id('bad-upsert'),
      args: [[['NotRegistered', 'KEYWORD', 'x']]],
    });
    await handle.signal(addSignal, 'upsert now');
    const failed = await eventually(async () => (await handle.fetchHistory()).events?.find((e) => e.workflowTaskFailedEventAttributes));
    expect(failed.workflowTaskFailedEventAttributes).toMatchObject({
      cause: WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES,
      failure: { message: 'BadSearchAttributes: search attribute NotRegistered is not defined' },
    });
    await handle.terminate();
  });

  it('refuses query values of the wrong type and operators the type does not have', async () => {
    const count = (query: string) => grpcError(s.env.client.workflow.count(query));
    expect(await count(`CustomIntField = 'seven'`)).toEqual({
      code: 3,
      details:
        'invalid query: invalid expression: invalid value type for search attribute CustomIntField of type Int: "seven" (type: string)',
    });
    expect(await count('CustomKeywordField = 5')).toMatchObject({ code: 3 });
    expect(await count(`CustomBoolField = 'yes'`)).toMatchObject({ code: 3 });
    expect(await count(`CustomDatetimeField > 'soon'`)).toEqual({
      code: 3,
      details: "invalid query: invalid expression: unable to parse datetime 'soon'",
    });
    expect(await count(`CustomTextField > 'a'`)).toEqual({
      code: 3,
      details: "invalid query: operation is not supported: operator '>' not supported for Text type search attribute 'CustomTextField'",
    });
    expect(await count(`CustomKeywordListField STARTS_WITH 'a'`)).toMatchObject({ code: 3 });
    expect(await count('CustomBoolField BETWEEN true AND false')).toMatchObject({ code: 3 });
  });
});
