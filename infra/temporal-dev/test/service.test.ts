// Service-level behaviour: system info, namespaces, and error statuses for unsupported or bad calls.
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { NamespaceNotFoundError } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTemporalDevServer } from '../index.ts';
import { usesDownloadedServer } from '../testing.ts';
import { grpcError, type Suite, setupSuite, startWorker, teardownSuite } from './helpers.ts';
import { greeting } from './workflows/index.ts';

let s: Suite;
beforeAll(async () => {
  s = await setupSuite('local', 'service', { greet: async (name: string) => `Hello, ${name}!` });
});
afterAll(() => teardownSuite(s));

describe('system and namespaces', () => {
  it('reports system info and describes the default namespace', async () => {
    const svc = s.env.client.workflowService;
    const info = await svc.getSystemInfo({});
    expect(info.capabilities?.signalAndQueryHeader).toBe(true);
    expect(info.capabilities?.sdkMetadata).toBe(true);
    const ns = await svc.describeNamespace({ namespace: 'default' });
    expect(ns.namespaceInfo?.name).toBe('default');
    const byId = await svc.describeNamespace({ id: ns.namespaceInfo!.id! });
    expect(byId.namespaceInfo?.name).toBe('default');
  });

  it('registers a namespace and runs workflows in it, isolated from the default one', async () => {
    const namespace = `ns-${randomUUID()}`;
    const svc = s.env.client.workflowService;
    await svc.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    expect(await grpcError(svc.registerNamespace({ namespace }))).toMatchObject({ code: 6 });
    const listed = await svc.listNamespaces({});
    expect(listed.namespaces?.map((n) => n.namespaceInfo?.name)).toContain(namespace);

    const client = new Client({ connection: s.env.connection, namespace });
    const worker = await startWorker(s.env, {
      namespace,
      taskQueue: s.taskQueue,
      activities: { greet: async (name: string) => `Hi from ${namespace}, ${name}` },
    });
    try {
      const workflowId = `in-ns-${randomUUID()}`;
      expect(await client.workflow.execute(greeting, { taskQueue: s.taskQueue, workflowId, args: ['x'] })).toBe(`Hi from ${namespace}, x`);
      // The default namespace knows nothing of it.
      await expect(s.env.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    } finally {
      await worker.stop();
    }
  });

  it('answers NOT_FOUND with namespace details for an unknown namespace', async () => {
    const client = new Client({ connection: s.env.connection, namespace: 'no-such-namespace' });
    await expect(client.workflow.start(greeting, { taskQueue: 'x', workflowId: 'x', args: ['x'] })).rejects.toBeInstanceOf(
      NamespaceNotFoundError,
    );
    expect(await grpcError(s.env.client.workflowService.describeNamespace({ namespace: 'no-such-namespace' }))).toMatchObject({ code: 5 });
  });
});

// What only our server does (real Temporal describes task queues); not run against downloaded servers.
describe.runIf(!usesDownloadedServer())('temporal-dev specifics', () => {
  it('answers UNIMPLEMENTED naming the method for unsupported RPCs', async () => {
    const err = await grpcError(
      s.env.client.workflowService.getWorkflowExecutionHistoryReverse({ namespace: 'default', execution: { workflowId: 'x' } }),
    );
    expect(err.code).toBe(12);
    expect(err.details).toMatch(/GetWorkflowExecutionHistoryReverse/);
    expect((await s.env.client.workflowService.getSystemInfo({})).serverVersion).toMatch(/temporal-dev/);
  });

  it('runs in-process through startTemporalDevServer', async () => {
    const server = await startTemporalDevServer({ port: 0 });
    const connection = await Connection.connect({ address: server.address });
    try {
      const client = new Client({ connection });
      const handle = await client.workflow.start(greeting, { taskQueue: 'in-process', workflowId: 'in-process', args: ['x'] });
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate();
      expect((await handle.describe()).status.name).toBe('TERMINATED');
    } finally {
      await connection.close();
      await server.stop();
    }
    await expect(Connection.connect({ address: server.address, connectTimeout: 500 })).rejects.toThrow();
  });
});

describe('errors', () => {
  it('answers INVALID_ARGUMENT with the reason for malformed requests', async () => {
    const svc = s.env.client.workflowService;
    const missingId = await grpcError(
      svc.startWorkflowExecution({
        namespace: 'default',
        workflowType: { name: 'greeting' },
        taskQueue: { name: 'q' },
        requestId: randomUUID(),
      }),
    );
    expect(missingId).toMatchObject({ code: 3, details: expect.stringMatching(/WorkflowId/) });
    const badToken = await grpcError(svc.respondActivityTaskCompleted({ namespace: 'default', taskToken: Buffer.from('not a token') }));
    expect(badToken).toMatchObject({ code: 3, details: expect.stringMatching(/task token/i) });
  });

  it('answers NOT_FOUND for unknown executions', async () => {
    await expect(s.env.client.workflow.getHandle(`missing-${randomUUID()}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    const raw = await grpcError(
      s.env.client.workflowService.describeWorkflowExecution({
        namespace: 'default',
        execution: { workflowId: `missing-${randomUUID()}` },
      }),
    );
    expect(raw.code).toBe(5);
  });
});
