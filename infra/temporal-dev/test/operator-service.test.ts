// OperatorService search-attribute calls, through the SDK's connection.operatorService.
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcError, type Suite, setupSuite, teardownSuite } from './helpers.ts';
import { waitForever } from './workflows/index.ts';

const { IndexedValueType } = temporal.api.enums.v1;

let s: Suite;
beforeAll(async () => {
  s = await setupSuite('local', 'operator', {});
});
afterAll(() => teardownSuite(s));

describe('search attributes', () => {
  it('adds, lists, queries by and removes a custom search attribute', async () => {
    const operator = s.env.connection.operatorService;
    const name = `Tier${randomUUID().slice(0, 8)}`;
    await operator.addSearchAttributes({
      namespace: 'default',
      searchAttributes: { [name]: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
    });
    // Adding it again is not an error.
    await operator.addSearchAttributes({ namespace: 'default', searchAttributes: { [name]: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD } });

    const listed = await operator.listSearchAttributes({ namespace: 'default' });
    expect(listed.customAttributes?.[name]).toBe(IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    expect(listed.systemAttributes?.WorkflowId).toBe(IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    expect(listed.systemAttributes?.TemporalNamespaceDivision).toBe(IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    expect(listed.customAttributes?.WorkflowId).toBeUndefined();

    // Registered before any workflow set it, the attribute is queryable at once.
    const handle = await s.env.client.workflow.start(waitForever, {
      taskQueue: s.taskQueue,
      workflowId: `op-${randomUUID()}`,
      searchAttributes: { [name]: ['gold'] },
    });
    const found = [];
    for await (const wf of s.env.client.workflow.list({ query: `${name} = 'gold'` })) found.push(wf.workflowId);
    expect(found).toEqual([handle.workflowId]);
    await handle.terminate();

    await operator.removeSearchAttributes({ namespace: 'default', searchAttributes: [name] });
    const after = await operator.listSearchAttributes({ namespace: 'default' });
    expect(after.customAttributes?.[name]).toBeUndefined();
    const query = s.env.client.workflowService.listWorkflowExecutions({ namespace: 'default', query: `${name} = 'gold'` });
    expect(await grpcError(query)).toMatchObject({ code: 3 });
  });

  it('rejects empty requests, reserved names, unknown types and unknown namespaces', async () => {
    const operator = s.env.connection.operatorService;
    expect(await grpcError(operator.addSearchAttributes({ namespace: 'default', searchAttributes: {} }))).toMatchObject({
      code: 3,
      details: 'SearchAttributes are not set on request.',
    });
    for (const reserved of ['WorkflowId', 'TemporalScheduledById', 'TemporalAnything']) {
      const call = operator.addSearchAttributes({
        namespace: 'default',
        searchAttributes: { [reserved]: IndexedValueType.INDEXED_VALUE_TYPE_TEXT },
      });
      expect(await grpcError(call)).toMatchObject({ code: 3, details: `Search attribute ${reserved} is reserved by system.` });
    }
    const badType = operator.addSearchAttributes({
      namespace: 'default',
      searchAttributes: { Fine: 99 as temporal.api.enums.v1.IndexedValueType },
    });
    expect(await grpcError(badType)).toMatchObject({ code: 3 });
    const system = operator.removeSearchAttributes({ namespace: 'default', searchAttributes: ['ExecutionStatus'] });
    expect(await grpcError(system)).toMatchObject({ code: 3, details: 'Unable to remove non-custom search attributes: ExecutionStatus.' });
    expect(await grpcError(operator.removeSearchAttributes({ namespace: 'default', searchAttributes: [] }))).toMatchObject({ code: 3 });
    expect(await grpcError(operator.listSearchAttributes({ namespace: 'no-such-namespace' }))).toMatchObject({ code: 5 });
    // The rest of OperatorService is not implemented.
    expect(await grpcError(operator.listClusters({}))).toMatchObject({ code: 12 });
  });
});
