import fs from 'node:fs/promises';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbOrTrx } from '../../domain/db/index.ts';
import { getProvisioningStatus } from '../../domain/provisioning/get-provisioning-status.ts';
import { initializeCompany } from '../../domain/provisioning/initialize-company.ts';
import { replaceCloudInstance } from '../../domain/provisioning/replace-cloud-instance.ts';
import { requestProvisioning } from '../../domain/provisioning/request-provisioning.ts';
import { awsCloudProvider } from '../../infra/cloud/aws-ec2-provider.ts';
import { relayDue } from '../../worker/outbox-relay.ts';
import { temporalRunObserver } from '../../worker/provisioning-observer.ts';
import type { TestDatabase } from '../support/database.ts';
import { installFakeEc2 } from '../support/fake-ec2.ts';
import { companyRootAt, initializeBody, tempRoots } from '../support/provisioning.ts';
import { startWorkflowTestEnv, type WorkflowTestEnv } from '../support/workflow-env.ts';

// A dead instance on the AWS provider (EC2 answered by aws-sdk-client-mock's fake): the run says
// what to do, and one documented call replaces it once, under a new client-token generation.

let env: TestWorkflowEnvironment;
let database: TestDatabase;
let workflows: WorkflowTestEnv;
let roots: string;
let fake: ReturnType<typeof installFakeEc2>;

beforeAll(async () => {
  roots = await tempRoots();
  fake = installFakeEc2(path.join(roots, 'ec2.json'));
  const cloud = awsCloudProvider({ imageId: 'ami-0123456789abcdef0', instanceType: 't3.small', pollIntervalMs: 1 });
  workflows = await startWorkflowTestEnv(cloud, { companyRoot: companyRootAt(roots) });
  ({ env, database } = workflows);
}, 120_000);
afterAll(async () => {
  fake?.mock.restore();
  await workflows?.stop();
  await fs.rm(roots, { recursive: true, force: true });
});

const CELL = 'cell-phoenix';
const status = () => getProvisioningStatus(database.db, undefined, CELL);
/** A use case in its own transaction, then the relay delivers the start; waits for the run's end (failed or not). */
async function run(useCase: (trx: DbOrTrx) => Promise<{ requestId: string; workflowId: string }>) {
  const queued = await database.db.transaction().execute(useCase);
  await relayDue({ db: database.db, client: env.client, logger: pino({ level: 'silent' }) });
  const { run_id } = await database.db
    .selectFrom('provisioning_requests')
    .select('run_id')
    .where('id', '=', queued.requestId)
    .executeTakeFirstOrThrow();
  await env.client.workflow
    .getHandle(queued.workflowId, run_id!)
    .result()
    .catch(() => undefined);
}
const replace = (trx: DbOrTrx) => replaceCloudInstance(trx, { cellId: CELL, accountId: 'acc_test' }, temporalRunObserver(env.client));

describe('a terminated instance', () => {
  it('is reported with its remedy, and replaced exactly once under a new client token', async () => {
    await run((trx) =>
      initializeCompany(
        trx,
        { ...initializeBody(CELL, path.join(roots, 'phoenix')), accountId: 'acc_test' },
        { companyRoot: companyRootAt(roots) },
      ),
    );
    const first = (await status()).server!;
    expect(first).toMatchObject({ provider: 'aws', state: 'running', generation: 0, replaced: [], remedy: null });

    fake.setState(first.instanceId, 'terminated');
    await run((trx) => requestProvisioning(trx, { cellId: CELL, part: 'cloud-instance', accountId: 'acc_test' }));
    const dead = await status();
    expect(dead.status).toBe('failed');
    expect(dead.server).toMatchObject({ instanceId: first.instanceId, state: 'terminated' });
    expect(dead.server!.remedy).toMatch(/POST \/api\/v1\/control-plane\/companies\/cell-phoenix\/cloud-instance with \{"replace": true\}/);
    expect(dead.failingStep?.lastError).toMatch(/is terminated; it will not start by itself\. The instance will not come back: POST/);

    // Two replace calls at once: one records the replacement, the other joins it.
    const answers = await Promise.all([database.db.transaction().execute(replace), database.db.transaction().execute(replace)]);
    expect(answers.map((a) => a.replacing)).toEqual([first.instanceId, first.instanceId]);
    await relayDue({ db: database.db, client: env.client, logger: pino({ level: 'silent' }) });
    await env.client.workflow.getHandle(answers[0]!.workflowId).result();

    const after = await status();
    expect(after.status).toBe('completed');
    // The run carries its company in its memo.
    expect((await env.client.workflow.getHandle(answers[0]!.workflowId).describe()).memo).toEqual({
      kind: 'company-initialization',
      company: CELL,
      companyName: 'phoenix Trading',
      part: 'cloud-instance',
    });
    expect(after.server).toMatchObject({ state: 'running', generation: 1, remedy: null });
    expect(after.server!.instanceId).not.toBe(first.instanceId);
    expect(after.server!.replaced).toEqual([
      { instanceId: first.instanceId, state: 'terminated', replacedAt: expect.any(String), generation: 1 },
    ]);
    expect(
      fake
        .instances()
        .map((i) => i.state)
        .sort(),
    ).toEqual(['running', 'terminated']);
    const tokens = new Set(fake.instances().map((i) => i.clientToken));
    expect(tokens.size).toBe(2);
    expect(after.runs[0]!.steps[0]!.changes).toEqual([
      { item: `instance ${after.server!.instanceId} (replaces ${first.instanceId})`, outcome: 'created' },
    ]);

    // The new one is alive: replacing it again is refused and changes nothing.
    await expect(database.db.transaction().execute(replace)).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/is recorded as running; only a terminated instance is replaced/),
    });
    await run((trx) => requestProvisioning(trx, { cellId: CELL, part: 'cloud-instance', accountId: 'acc_test' }));
    expect(fake.instances()).toHaveLength(2);
    expect((await status()).server!.instanceId).toBe(after.server!.instanceId);
  });
});
