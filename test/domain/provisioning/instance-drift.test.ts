import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudProvider } from '../../../domain/provisioning/cloud-provider.ts';
import { detectInstanceDrift } from '../../../domain/provisioning/detect-instance-drift.ts';
import { instanceRequest } from '../../../domain/provisioning/ensure-cloud-instance.ts';
import type { ProvisioningRecord } from '../../../domain/provisioning/repository.ts';
import { awsCloudProvider } from '../../../infra/cloud/aws-ec2-provider.ts';
import { localCloudProvider } from '../../../infra/cloud/local-provider.ts';
import { installFakeEc2 } from '../../support/fake-ec2.ts';
import { tempRoots } from '../../support/provisioning.ts';

// Instance drift: the recorded instance against the provider, on the local provider and on AWS
// (EC2 answered by aws-sdk-client-mock's fake). Reads only: nothing is created by looking.

let roots: string;
let fake: ReturnType<typeof installFakeEc2>;
beforeAll(async () => {
  roots = await tempRoots();
  fake = installFakeEc2(path.join(roots, 'ec2.json'));
});
afterAll(async () => {
  fake.mock.restore();
  await fs.rm(roots, { recursive: true, force: true });
});

/** A company's record as the steps leave it: the instance the provider made, as it answered when last looked at. */
async function provisioned(cloud: CloudProvider, cellId: string): Promise<ProvisioningRecord> {
  const record = {
    company_id: `org_${cellId}`,
    cell_id: cellId,
    company_key: cellId,
    name_en: cellId,
    name_zh: cellId,
    root_path: '/nonexistent',
    cloud: { profile: 'ops', accountId: '123456789012', region: 'eu-central-1', instanceName: `${cellId}-main` },
    instance: null,
    instance_synced_at: null,
    pending_move: null,
    instance_generation: 0,
    replaced_instances: [],
    created_at: new Date(),
    updated_at: new Date(),
  } satisfies ProvisioningRecord;
  const made = await cloud.runInstance(instanceRequest(record));
  // Pending at the first look (a simulated boot), running from the second on.
  await cloud.describeInstance(instanceRequest(record), made.instanceId);
  const seen = await cloud.describeInstance(instanceRequest(record), made.instanceId);
  return { ...record, instance: { provider: cloud.kind, ...seen } };
}

const kinds = (drift: Awaited<ReturnType<typeof detectInstanceDrift>>) => drift?.entries.map((e) => [e.kind, e.target, e.detail]);

describe('instance drift on AWS', () => {
  const cloud = awsCloudProvider({ imageId: 'ami-0123456789abcdef0', instanceType: 't3.small', pollIntervalMs: 1 });

  it('none while the provider agrees; a terminated instance is changed, with the state the remedy follows', async () => {
    const record = await provisioned(cloud, 'cell-aws-drift');
    expect(await detectInstanceDrift(cloud, record)).toEqual({ checked: true, state: 'running', error: null, entries: [] });
    fake.setState(record.instance!.instanceId, 'terminated');
    const drift = await detectInstanceDrift(cloud, record);
    expect(drift).toMatchObject({ checked: true, state: 'terminated', error: null });
    expect(kinds(drift)).toEqual([
      ['changed', 'instance', 'recorded running, the provider says terminated'],
      ['changed', 'instance', 'recorded address 203.0.113.7, the provider says 10.0.0.12'],
    ]);
    // Looking created nothing.
    expect(fake.instances()).toHaveLength(1);
  });

  it('reports an instance the provider does not know as missing, and another tagged one as unexpected', async () => {
    const record = await provisioned(cloud, 'cell-aws-gone');
    const unknown = { ...record, instance: { ...record.instance!, instanceId: 'i-00000000000000000' } };
    const drift = await detectInstanceDrift(cloud, unknown);
    expect(kinds(drift)).toEqual([
      ['missing', 'instance', 'the provider does not know this instance'],
      ['unexpected', 'instance', "carries the company's tag; state running"],
    ]);
    expect(drift!.entries[1]!.name).toBe(record.instance!.instanceId);
  });

  it('says it could not look when the provider fails, and skips a replacement that waits for its run', async () => {
    const record = await provisioned(cloud, 'cell-aws-down');
    const down: CloudProvider = { ...cloud, describeInstance: () => Promise.reject(new Error('RequestLimitExceeded')) };
    expect(await detectInstanceDrift(down, record)).toEqual({ checked: false, state: null, error: 'RequestLimitExceeded', entries: [] });
    const replacing = {
      ...record,
      replaced_instances: [{ instanceId: record.instance!.instanceId, state: 'terminated', replacedAt: '', generation: 1 }],
    };
    expect(await detectInstanceDrift(cloud, replacing)).toBeNull();
    expect(await detectInstanceDrift(cloud, { ...record, instance: null })).toBeNull();
  });
});

describe('instance drift on the local provider', () => {
  it('reports a terminated instance, and an instance of another provider as not checked', async () => {
    const cloud = localCloudProvider({ dir: path.join(roots, 'local-cloud') });
    const record = await provisioned(cloud, 'cell-local-drift');
    expect((await detectInstanceDrift(cloud, record))?.entries).toEqual([]);
    const file = path.join(roots, 'local-cloud', `${instanceRequest(record).clientToken}.json`);
    await fs.writeFile(file, JSON.stringify({ ...JSON.parse(await fs.readFile(file, 'utf8')), state: 'terminated' }));
    expect(kinds(await detectInstanceDrift(cloud, record))).toEqual([
      ['changed', 'instance', 'recorded running, the provider says terminated'],
    ]);
    const elsewhere = { ...record, instance: { ...record.instance!, provider: 'aws' as const } };
    expect(await detectInstanceDrift(cloud, elsewhere)).toMatchObject({
      checked: false,
      error: 'recorded on provider aws; this service uses local',
    });
  });
});
