// Child workflows, external signal/cancel, local activities, memo and search attributes, visibility.
import { randomUUID } from 'node:crypto';
import type { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, eventually, grpcError, type Suite, setupSuite, teardownSuite } from './helpers.ts';
import {
  addSignal,
  CustomInt,
  CustomKeyword,
  cancelOther,
  cancelTimer,
  collect,
  greeting,
  localGreeting,
  longLocalActivity,
  parent,
  parentCancellingChild,
  parentLeavingChild,
  parentOfFailing,
  parentWithPolicy,
  signalOther,
  upserter,
  waitForever,
} from './workflows/index.ts';

let s: Suite;
beforeAll(async () => {
  const activities = {
    greet: async (name: string) => `Hello, ${name}!`,
    pause: async (ms: number) => {
      await new Promise((r) => setTimeout(r, ms));
      return `paused ${ms} ms`;
    },
  };
  s = await setupSuite('local', 'composition', activities, {
    searchAttributes: [CustomKeyword, CustomInt],
  });
});
afterAll(() => teardownSuite(s));

const id = (prefix: string) => `${prefix}-${randomUUID()}`;
const opts = <const A extends readonly unknown[]>(prefix: string, args: A) => ({ taskQueue: s.taskQueue, workflowId: id(prefix), args });

describe('child workflows', () => {
  it('returns a child result to the parent', async () => {
    expect(await s.env.client.workflow.execute(parent, opts('parent', ['kid']))).toBe('Hello, kid!');
  });

  it('reports a child failure to the parent', async () => {
    expect(await s.env.client.workflow.execute(parentOfFailing, opts('parent-fail', []))).toBe('child failed: child broke');
  });

  it('terminates a running child when the parent closes (default parent close policy)', async () => {
    const childId = await s.env.client.workflow.execute(parentLeavingChild, opts('parent-leave', []));
    const child = s.env.client.workflow.getHandle(childId);
    await eventually(async () => (await child.describe()).status.name === 'TERMINATED');
    const desc = await child.describe();
    expect(desc.parentExecution?.workflowId).toBe(childId.replace(/-child$/, ''));
  });
});

describe('parent close policies and child cancellation', () => {
  it('cancels the child under REQUEST_CANCEL and leaves it running under ABANDON', async () => {
    const cancelledId = await s.env.client.workflow.execute(parentWithPolicy, opts('policy-cancel', ['REQUEST_CANCEL']));
    const cancelled = s.env.client.workflow.getHandle(cancelledId);
    await eventually(async () => (await cancelled.describe()).status.name === 'CANCELLED');

    const abandonedId = await s.env.client.workflow.execute(parentWithPolicy, opts('policy-abandon', ['ABANDON']));
    const abandoned = s.env.client.workflow.getHandle(abandonedId);
    // Give a (wrong) policy time to act: the TERMINATE and REQUEST_CANCEL cases settle well within this.
    await new Promise((r) => setTimeout(r, 500));
    expect((await abandoned.describe()).status.name).toBe('RUNNING');
    await abandoned.terminate();
  });

  it('lets a parent cancel its child', async () => {
    const handle = await s.env.client.workflow.start(parentCancellingChild, opts('cancel-child', []));
    expect(await handle.result()).toBe('child cancelled');
    const child = s.env.client.workflow.getHandle(`${handle.workflowId}-child`);
    expect((await child.describe()).status.name).toBe('CANCELLED');
    expect(eventTypes((await handle.fetchHistory()).events)).toContain('CHILD_WORKFLOW_EXECUTION_CANCELED');
  });
});

describe('timers', () => {
  it('cancels a timer', async () => {
    const handle = await s.env.client.workflow.start(cancelTimer, opts('timer', []));
    expect(await handle.result()).toBe('timer cancelled');
    const types = eventTypes((await handle.fetchHistory()).events);
    expect(types).toContain('TIMER_CANCELED');
    expect(types.filter((t) => t === 'TIMER_FIRED')).toHaveLength(1);
  });
});

describe('external workflows', () => {
  it('signals another workflow, and reports a missing target', async () => {
    const target = await s.env.client.workflow.start(collect, opts('target', [1]));
    expect(await s.env.client.workflow.execute(signalOther, opts('signaler', [target.workflowId, 'from afar']))).toBe('signaled');
    expect(await target.result()).toEqual(['from afar']);
    const missing = await s.env.client.workflow.execute(signalOther, opts('signaler', [id('nobody'), 'x']));
    expect(missing).toMatch(/^signal failed/);
  });

  it('requests cancellation of another workflow', async () => {
    const target = await s.env.client.workflow.start(waitForever, opts('cancel-target', []));
    expect(await s.env.client.workflow.execute(cancelOther, opts('canceller', [target.workflowId]))).toBe('cancel requested');
    const err = await target.result().catch((e: unknown) => e);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const history = await target.fetchHistory();
    expect(eventTypes(history.events)).toContain('WORKFLOW_EXECUTION_CANCEL_REQUESTED');
  });
});

describe('local activities', () => {
  it('records local activity results as markers', async () => {
    const handle = await s.env.client.workflow.start(localGreeting, opts('local', ['marker']));
    expect(await handle.result()).toBe('Hello, marker!');
    expect(eventTypes((await handle.fetchHistory()).events)).toContain('MARKER_RECORDED');
  });

  it('keeps a workflow task alive while a local activity outlives the task timeout', async () => {
    const handle = await s.env.client.workflow.start(longLocalActivity, { ...opts('local-long', [2500]), workflowTaskTimeout: '1s' });
    expect(await handle.result()).toBe('paused 2500 ms');
    const types = eventTypes((await handle.fetchHistory()).events);
    // The worker completes heartbeat tasks with forceCreateNewWorkflowTask instead of timing out.
    expect(types.filter((t) => t === 'WORKFLOW_TASK_COMPLETED').length).toBeGreaterThanOrEqual(3);
    expect(types).not.toContain('WORKFLOW_TASK_TIMED_OUT');
  });
});

describe('memo, search attributes and visibility', () => {
  it('upserts memo and search attributes and finds the workflow by them', async () => {
    const keyword = `kw-${randomUUID()}`;
    const handle = await s.env.client.workflow.start(upserter, { ...opts('upsert', [keyword]), memo: { initial: true } });
    await eventually(async () => (await handle.describe()).memo?.stage === 'upserted');
    const desc = await handle.describe();
    expect(desc.memo).toEqual({ initial: true, stage: 'upserted' });
    expect(desc.typedSearchAttributes.get(CustomKeyword)).toBe(keyword);
    expect(desc.typedSearchAttributes.get(CustomInt)).toBe(42);

    const found = [];
    for await (const wf of s.env.client.workflow.list({ query: `CustomKeywordField = '${keyword}'` })) found.push(wf.workflowId);
    expect(found).toEqual([handle.workflowId]);
    expect((await s.env.client.workflow.count(`CustomKeywordField = '${keyword}' AND CustomIntField > 41`)).count).toBe(1);
    expect((await s.env.client.workflow.count(`CustomKeywordField = '${keyword}' AND CustomIntField > 42`)).count).toBe(0);
    await handle.terminate();
  });

  it('lists and counts by type, id, status and time ranges', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const done = await s.env.client.workflow.start(greeting, opts('vis', ['v']));
    await done.result();
    const running = await s.env.client.workflow.start(collect, opts('vis', [9]));
    const count = async (q: string) => (await s.env.client.workflow.count(q)).count;

    expect(await count(`WorkflowId = '${done.workflowId}'`)).toBe(1);
    expect(await count(`WorkflowId = '${done.workflowId}' AND ExecutionStatus = 'Completed'`)).toBe(1);
    expect(await count(`WorkflowId = '${done.workflowId}' AND ExecutionStatus = 'Running'`)).toBe(0);
    expect(await count(`WorkflowId = '${running.workflowId}' AND ExecutionStatus = 'Running' AND WorkflowType = 'collect'`)).toBe(1);
    expect(await count(`WorkflowId IN ('${done.workflowId}', '${running.workflowId}') AND StartTime > '${before}'`)).toBe(2);
    expect(await count(`WorkflowId = '${done.workflowId}' AND CloseTime < '${before}'`)).toBe(0);
    expect(await count(`WorkflowId = '${done.workflowId}' AND CloseTime > '${before}'`)).toBe(1);

    const listed = [];
    for await (const wf of s.env.client.workflow.list({ query: `WorkflowType = 'collect' AND ExecutionStatus = 'Running'` }))
      listed.push(wf);
    expect(listed.map((w) => w.workflowId)).toContain(running.workflowId);
    expect(listed.every((w) => w.type === 'collect' && w.status.name === 'RUNNING')).toBe(true);

    const grouped = await s.env.client.workflow.count(`WorkflowId = '${running.workflowId}' GROUP BY ExecutionStatus`);
    expect(grouped.groups).toEqual([{ count: 1, groupValues: [['Running']] }]);

    expect(await grpcError(count('WorkflowId = '))).toMatchObject({ code: 3 });
    expect(await grpcError(count(`NoSuchAttribute = 'x'`))).toMatchObject({ code: 3, details: expect.stringContaining('NoSuchAttribute') });
    await running.terminate();
  });

  it('pages through list results', async () => {
    const prefix = `page-${randomUUID()}`;
    for (let i = 0; i < 5; i++)
      await s.env.client.workflow.start(collect, { taskQueue: s.taskQueue, workflowId: `${prefix}-${i}`, args: [1] });
    const svc = s.env.client.workflowService;
    const ids: string[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await svc.listWorkflowExecutions({
        namespace: 'default',
        pageSize: 2,
        nextPageToken,
        query: `WorkflowId STARTS_WITH '${prefix}'`,
      });
      ids.push(...(page.executions ?? []).map((e) => e.execution!.workflowId!));
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    expect(ids.sort()).toEqual([0, 1, 2, 3, 4].map((i) => `${prefix}-${i}`));
    for (const wid of ids) await s.env.client.workflow.getHandle(wid).signal(addSignal, 'x');
  });
});
