// Workflow lifecycle RPCs driven through the official SDK client and worker.
import { randomUUID } from 'node:crypto';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, defaultPayloadConverter, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, type Suite, setupSuite, teardownSuite } from './helpers.ts';
import {
  addSignal,
  addUpdate,
  collect,
  countdown,
  failFirstAttempt,
  failing,
  failingQuery,
  greeting,
  itemsQuery,
  waitForever,
} from './workflows/index.ts';

let s: Suite;
beforeAll(async () => {
  s = await setupSuite('local', 'lifecycle', { greet: async (name: string) => `Hello, ${name}!` });
});
afterAll(() => teardownSuite(s));

const id = (prefix: string) => `${prefix}-${randomUUID()}`;

describe('start', () => {
  it('runs a workflow with an activity to completion', async () => {
    const result = await s.env.client.workflow.execute(greeting, { taskQueue: s.taskQueue, workflowId: id('greet'), args: ['Temporal'] });
    expect(result).toBe('Hello, Temporal!');
  });

  it('dedupes a retried start by request id and rejects a different one', async () => {
    const workflowId = id('dedupe');
    const request = {
      namespace: 'default',
      workflowId,
      workflowType: { name: 'collect' },
      taskQueue: { name: s.taskQueue },
      input: { payloads: [defaultPayloadConverter.toPayload(1)] },
      requestId: randomUUID(),
    };
    const svc = s.env.client.workflowService;
    const first = await svc.startWorkflowExecution(request);
    const again = await svc.startWorkflowExecution(request);
    expect(again.runId).toBe(first.runId);
    await expect(svc.startWorkflowExecution({ ...request, requestId: randomUUID() })).rejects.toMatchObject({ code: 6 });
    await s.env.client.workflow.getHandle(workflowId).terminate();
  });

  it('applies id conflict policies FAIL, USE_EXISTING and TERMINATE_EXISTING', async () => {
    const workflowId = id('conflict');
    const opts = { taskQueue: s.taskQueue, workflowId, args: [5] as [number] };
    const first = await s.env.client.workflow.start(collect, opts);
    await expect(s.env.client.workflow.start(collect, opts)).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
    const existing = await s.env.client.workflow.start(collect, { ...opts, workflowIdConflictPolicy: 'USE_EXISTING' });
    expect(existing.firstExecutionRunId).toBe(first.firstExecutionRunId);
    const replaced = await s.env.client.workflow.start(collect, { ...opts, workflowIdConflictPolicy: 'TERMINATE_EXISTING' });
    expect(replaced.firstExecutionRunId).not.toBe(first.firstExecutionRunId);
    const firstRun = s.env.client.workflow.getHandle(workflowId, first.firstExecutionRunId);
    expect((await firstRun.describe()).status.name).toBe('TERMINATED');
    expect((await replaced.describe()).status.name).toBe('RUNNING');
    await replaced.terminate();
  });

  it('applies id reuse policies to closed runs', async () => {
    const workflowId = id('reuse');
    await s.env.client.workflow.execute(greeting, { taskQueue: s.taskQueue, workflowId, args: ['a'] });
    const again = { taskQueue: s.taskQueue, workflowId, args: ['b'] as [string] };
    await expect(s.env.client.workflow.start(greeting, { ...again, workflowIdReusePolicy: 'REJECT_DUPLICATE' })).rejects.toBeInstanceOf(
      WorkflowExecutionAlreadyStartedError,
    );
    await expect(
      s.env.client.workflow.start(greeting, { ...again, workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' }),
    ).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
    expect(await s.env.client.workflow.execute(greeting, again)).toBe('Hello, b!');

    const failedId = id('reuse-failed');
    await expect(s.env.client.workflow.execute(failing, { taskQueue: s.taskQueue, workflowId: failedId, args: ['x'] })).rejects.toThrow();
    const retried = await s.env.client.workflow.start(greeting, {
      taskQueue: s.taskQueue,
      workflowId: failedId,
      args: ['c'],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
    expect(await retried.result()).toBe('Hello, c!');
  });

  it('reports a workflow failure with its cause', async () => {
    const err = await s.env.client.workflow
      .execute(failing, { taskQueue: s.taskQueue, workflowId: id('fail'), args: ['it broke'] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).message).toBe('it broke');
    expect((cause as ApplicationFailure).type).toBe('TestFailure');
  });
});

describe('workflow retry policy', () => {
  it('retries a failed workflow as a new run of the same chain', async () => {
    const handle = await s.env.client.workflow.start(failFirstAttempt, {
      taskQueue: s.taskQueue,
      workflowId: id('wf-retry'),
      retry: { maximumAttempts: 3, initialInterval: '10ms' },
    });
    expect(await handle.result()).toBe(2);
    const first = s.env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
    expect((await first.describe()).status.name).toBe('FAILED');
  });
});

describe('signals and queries', () => {
  it('delivers signals and answers queries while running and after close', async () => {
    const handle = await s.env.client.workflow.start(collect, { taskQueue: s.taskQueue, workflowId: id('signal'), args: [2] });
    await handle.signal(addSignal, 'a');
    expect(await handle.query(itemsQuery)).toEqual(['a']);
    await expect(handle.query(failingQuery)).rejects.toThrow(/query handler exploded/);
    await handle.signal(addSignal, 'b');
    expect(await handle.result()).toEqual(['a', 'b']);
    expect(await handle.query(itemsQuery)).toEqual(['a', 'b']);
    const rejected = await s.env.client.workflowService.queryWorkflow({
      namespace: 'default',
      execution: { workflowId: handle.workflowId },
      query: { queryType: 'items' },
      queryRejectCondition: temporal.api.enums.v1.QueryRejectCondition.QUERY_REJECT_CONDITION_NOT_OPEN,
    });
    expect(rejected.queryRejected?.status).toBe(temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
  });

  it('signal-with-start writes the signal before the first workflow task', async () => {
    const workflowId = id('sws');
    const handle = await s.env.client.workflow.signalWithStart(collect, {
      taskQueue: s.taskQueue,
      workflowId,
      args: [2],
      signal: addSignal,
      signalArgs: ['first'],
    });
    // A second signal-with-start signals the running workflow instead of starting another.
    const second = await s.env.client.workflow.signalWithStart(collect, {
      taskQueue: s.taskQueue,
      workflowId,
      args: [2],
      signal: addSignal,
      signalArgs: ['second'],
    });
    expect(second.signaledRunId).toBe(handle.signaledRunId);
    expect(await handle.result()).toEqual(['first', 'second']);
    const history = await handle.fetchHistory();
    expect(eventTypes(history.events).slice(0, 3)).toEqual([
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_EXECUTION_SIGNALED',
      'WORKFLOW_TASK_SCHEDULED',
    ]);
  });

  it('rejects signals to closed or unknown workflows', async () => {
    const handle = await s.env.client.workflow.start(greeting, { taskQueue: s.taskQueue, workflowId: id('closed'), args: ['x'] });
    await handle.result();
    await expect(handle.signal(addSignal, 'late')).rejects.toBeInstanceOf(WorkflowNotFoundError);
    await expect(s.env.client.workflow.getHandle(id('missing')).signal(addSignal, 'x')).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });
});

describe('cancel and terminate', () => {
  it('cancels a running workflow', async () => {
    const handle = await s.env.client.workflow.start(waitForever, { taskQueue: s.taskQueue, workflowId: id('cancel') });
    await handle.cancel();
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    await expect(handle.cancel()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('times out a workflow that outlives its execution timeout', async () => {
    const err = await s.env.client.workflow
      .execute(waitForever, { taskQueue: s.taskQueue, workflowId: id('exec-timeout'), workflowExecutionTimeout: '1s' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(TimeoutFailure);
  });

  it('terminates a running workflow with a reason', async () => {
    const handle = await s.env.client.workflow.start(collect, { taskQueue: s.taskQueue, workflowId: id('term'), args: [1] });
    await handle.terminate('enough');
    const err = await handle.result().catch((e: unknown) => e);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(TerminatedFailure);
    expect((err as WorkflowFailedError).message).toBe('enough');
    const desc = await handle.describe();
    expect(desc.status.name).toBe('TERMINATED');
    expect(desc.closeTime).toBeInstanceOf(Date);
  });
});

describe('describe and history', () => {
  it('describes a running workflow with memo and search attributes', async () => {
    const handle = await s.env.client.workflow.start(collect, {
      taskQueue: s.taskQueue,
      workflowId: id('describe'),
      args: [1],
      memo: { owner: 'tests' },
    });
    const desc = await handle.describe();
    expect(desc.type).toBe('collect');
    expect(desc.taskQueue).toBe(s.taskQueue);
    expect(desc.status.name).toBe('RUNNING');
    expect(desc.memo).toEqual({ owner: 'tests' });
    expect(desc.runId).toBe(handle.firstExecutionRunId);
    await handle.terminate();
  });

  it('pages history and long-polls for new events', async () => {
    const handle = await s.env.client.workflow.start(collect, { taskQueue: s.taskQueue, workflowId: id('history'), args: [3] });
    await handle.signal(addSignal, 'a');
    // Once the query sees the signal the workflow is idle and its history stable.
    expect(await handle.query(itemsQuery)).toEqual(['a']);
    const execution = { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
    const svc = s.env.client.workflowService;
    const full = (await handle.fetchHistory()).events ?? [];
    const paged: unknown[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await svc.getWorkflowExecutionHistory({ namespace: 'default', execution, maximumPageSize: 2, nextPageToken });
      expect((page.history?.events ?? []).length).toBeLessThanOrEqual(2);
      paged.push(...(page.history?.events ?? []));
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    expect(paged.length).toBe(full.length);

    // A waiting read returns what exists plus a token; reading on with it blocks until new events.
    const current = await svc.getWorkflowExecutionHistory({ namespace: 'default', execution, waitNewEvent: true });
    expect(current.history?.events?.length).toBe(full.length);
    expect(current.nextPageToken?.length).toBeGreaterThan(0);
    const longPoll = svc.getWorkflowExecutionHistory({
      namespace: 'default',
      execution,
      waitNewEvent: true,
      nextPageToken: current.nextPageToken,
    });
    await new Promise((r) => setTimeout(r, 200));
    await handle.signal(addSignal, 'b');
    const news = await longPoll;
    expect(eventTypes(news.history?.events)).toContain('WORKFLOW_EXECUTION_SIGNALED');
    await handle.terminate();
  });
});

describe('continue-as-new', () => {
  it('follows a continue-as-new chain to the final result', async () => {
    const handle = await s.env.client.workflow.start(countdown, { taskQueue: s.taskQueue, workflowId: id('can'), args: [3] });
    expect(await handle.result()).toBe('done after 4 runs, continued from a previous run');
    const first = s.env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
    expect((await first.describe()).status.name).toBe('CONTINUED_AS_NEW');
    const latest = await s.env.client.workflow.getHandle(handle.workflowId).describe();
    expect(latest.status.name).toBe('COMPLETED');
    expect(latest.runId).not.toBe(handle.firstExecutionRunId);
  });
});

describe('updates', () => {
  it('executes updates, records accepted ones in history, and leaves no trace of rejected ones', async () => {
    const handle = await s.env.client.workflow.start(collect, { taskQueue: s.taskQueue, workflowId: id('update'), args: [2] });
    expect(await handle.executeUpdate(addUpdate, { args: ['u1'] })).toBe(1);
    const rejected = await handle.executeUpdate(addUpdate, { args: [''] }).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((rejected as WorkflowUpdateFailedError).cause?.message).toBe('empty item');
    const invalid = await handle.executeUpdate(addUpdate, { args: ['invalid'] }).catch((e: unknown) => e);
    expect((invalid as WorkflowUpdateFailedError).cause?.message).toBe('rejected by validator');
    const started = await handle.startUpdate(addUpdate, { args: ['u2'], waitForStage: 'ACCEPTED' });
    expect(await started.result()).toBe(2);
    expect(await handle.result()).toEqual(['u1', 'u2']);
    const types = eventTypes((await handle.fetchHistory()).events);
    // u1, '' (accepted, then failed by the handler) and u2; the validator's rejection writes nothing.
    expect(types.filter((t) => t === 'WORKFLOW_EXECUTION_UPDATE_ACCEPTED')).toHaveLength(3);
    expect(types.filter((t) => t === 'WORKFLOW_EXECUTION_UPDATE_COMPLETED')).toHaveLength(3);
  });

  it('dedupes an update by id', async () => {
    const handle = await s.env.client.workflow.start(collect, { taskQueue: s.taskQueue, workflowId: id('update-dedupe'), args: [3] });
    expect(await handle.executeUpdate(addUpdate, { args: ['once'], updateId: 'same' })).toBe(1);
    expect(await handle.executeUpdate(addUpdate, { args: ['once'], updateId: 'same' })).toBe(1);
    expect(await handle.query(itemsQuery)).toEqual(['once']);
    await handle.terminate();
  });
});
