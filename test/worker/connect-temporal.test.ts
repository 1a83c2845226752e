import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTemporalDevServer, type TemporalDevServer } from '@svc/temporal-dev';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

// With TEMPORAL_ADDRESS set the service starts no server of its own and uses that cluster's namespace.

let cluster: TemporalDevServer;
let svc: TestService;
beforeAll(async () => {
  cluster = await startTemporalDevServer({ namespaces: ['default', 'svc-prod'] });
  svc = await startTestService({ role: 'all', env: { TEMPORAL_ADDRESS: cluster.address, TEMPORAL_NAMESPACE: 'svc-prod' } });
});
afterAll(async () => {
  await svc?.close();
  await cluster?.stop();
});

describe('TEMPORAL_ADDRESS', () => {
  it('points the service at that cluster and namespace', async () => {
    expect(svc.temporal).toMatchObject({ address: cluster.address, namespace: 'svc-prod', embeddedStateFile: undefined });
    await svc.call('POST', '/api/v1/developer/device-codes', { body: {} });
    const connection = await Connection.connect({ address: cluster.address });
    try {
      const client = new Client({ connection, namespace: 'svc-prod' });
      await expect.poll(async () => (await client.workflow.count('WorkflowType = "deviceLoginExpiry"')).count).toBe(1);
    } finally {
      await connection.close();
    }
  });

  it('fails to start with a clear message when the cluster cannot be reached', async () => {
    const { loadConfig } = await import('../../config.ts');
    const { startService } = await import('../../service.ts');
    const { pino } = await import('pino');
    // A data folder of its own: the worker role writes its payload key and bundle cache there.
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-connect-'));
    const config = loadConfig({ PORT: '0', DATABASE_URL: svc.database.url, TEMPORAL_ADDRESS: '127.0.0.1:1', SVC_DATA_DIR: dataDir });
    await expect(startService(config, { logger: pino({ level: 'silent' }), role: 'worker' })).rejects.toThrow(
      /cannot reach Temporal at 127\.0\.0\.1:1/,
    );
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);
});
