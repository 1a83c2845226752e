import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startTemporalDevServer } from '@svc/temporal-dev';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { localModelProvider } from '../../domain/app-workflows/model-provider.ts';
import { cachedBlobStore, postgresBlobBackend } from '../../domain/apps/index.ts';
import { unconfiguredMailer } from '../../domain/mail/mailer.ts';
import { getProvisioningStatus } from '../../domain/provisioning/get-provisioning-status.ts';
import { initializeCompany } from '../../domain/provisioning/initialize-company.ts';
import { awsCloudProvider } from '../../infra/cloud/aws-ec2-provider.ts';
import { relayDue } from '../../worker/outbox-relay.ts';
import { installTemporalRuntime } from '../../worker/runtime.ts';
import { ensureSearchAttributes } from '../../worker/search-attributes.ts';
import { bundleWorkflows } from '../../worker/workflow-bundle.ts';
import { TASK_QUEUE } from '../../workflows/contract.ts';
import { testConnectivity } from '../support/connectivity.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { installFakeEc2 } from '../support/fake-ec2.ts';
import { exitCode } from '../support/process.ts';
import { companyRootAt, initializeBody, tempRoots } from '../support/provisioning.ts';

// The worst moment for a crash: the worker dies (SIGKILL) after RunInstances created the instance
// and before the activity reported. The activity's heartbeat timeout tells Temporal, the retry
// runs on another worker, and the client token makes EC2 return the first instance, even when
// the tag search cannot see it yet. Exactly one instance exists afterwards.

let server: Awaited<ReturnType<typeof startTemporalDevServer>>;
let database: TestDatabase;
let roots: string;
let client: Client;
let native: NativeConnection;

beforeAll(async () => {
  installTemporalRuntime();
  server = await startTemporalDevServer();
  database = await createTestDatabase();
  roots = await tempRoots();
  client = new Client({ connection: await Connection.connect({ address: server.address }) });
  native = await NativeConnection.connect({ address: server.address });
  // As the worker does at start: the relay's starts set the company's search attributes.
  await ensureSearchAttributes(client, 'default');
}, 120_000);
afterAll(async () => {
  await native?.close();
  await client?.connection.close();
  await server?.stop();
  await database?.drop();
  await fs.rm(roots, { recursive: true, force: true });
});

describe('a worker killed after RunInstances', () => {
  it('leaves exactly one instance once the step is retried elsewhere', async () => {
    const stateFile = path.join(roots, 'ec2.json');
    // Workflows run here; activities first only in the child that will die.
    const workflows = await Worker.create({ connection: native, taskQueue: TASK_QUEUE, workflowBundle: await bundleWorkflows() });
    const workflowsRunning = workflows.run();
    const child = spawn(
      process.execPath,
      [path.resolve('test/workflows/fixtures/ec2-activity-worker.ts'), server.address, database.url, stateFile, roots],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const exited = exitCode(child);
    await expect.poll(() => output, { timeout: 60_000 }).toContain('activity worker ready');

    const queued = await database.db
      .transaction()
      .execute((trx) =>
        initializeCompany(
          trx,
          { ...initializeBody('cell-crash', path.join(roots, 'crash')), accountId: 'acc_test' },
          { companyRoot: companyRootAt(roots) },
        ),
      );
    await relayDue({ db: database.db, client, logger: pino({ level: 'silent' }) });
    const { run_id: runId } = await database.db
      .selectFrom('provisioning_requests')
      .select('run_id')
      .where('id', '=', queued.requestId)
      .executeTakeFirstOrThrow();

    await exited;
    expect(child.signalCode, output).toBe('SIGKILL');
    const ec2 = installFakeEc2(stateFile, { tagSearchBlind: true });
    try {
      expect(ec2.instances()).toHaveLength(1);
      const survivor = await Worker.create({
        connection: native,
        taskQueue: TASK_QUEUE,
        activities: createActivities({
          db: database.db,
          cloud: awsCloudProvider({ imageId: 'ami-0123456789abcdef0', instanceType: 't3.small', pollIntervalMs: 10 }),
          companyRoot: companyRootAt(roots),
          mailer: unconfiguredMailer,
          models: localModelProvider,
          connectivity: testConnectivity(),
          blobs: cachedBlobStore(postgresBlobBackend(database.db), 0),
          blobSweepGraceMs: 24 * 3_600_000,
        }),
      });
      await survivor.runUntil(client.workflow.getHandle(queued.workflowId, runId!).result());

      expect(ec2.instances()).toHaveLength(1);
      const status = await getProvisioningStatus(database.db, undefined, 'cell-crash');
      expect(status.status).toBe('completed');
      expect(status.server).toMatchObject({
        provider: 'aws',
        instanceId: ec2.instances()[0]!.id,
        state: 'running',
        address: '203.0.113.7',
      });
      const step = status.runs[0]!.steps.find((s) => s.name === 'cloud-instance')!;
      // The first attempt died without a word; the second reports, and says it created (no tag search saw it).
      expect(step).toMatchObject({ status: 'completed', attempts: 2, changes: [{ outcome: 'created' }] });
    } finally {
      ec2.mock.restore();
      workflows.shutdown();
      await workflowsRunning;
    }
  }, 90_000);
});
