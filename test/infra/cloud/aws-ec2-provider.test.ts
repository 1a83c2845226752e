import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DescribeInstancesCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { instanceClientToken } from '../../../domain/provisioning/cloud-provider.ts';
import { awsCloudProvider } from '../../../infra/cloud/aws-ec2-provider.ts';
import { installFakeEc2 } from '../../support/fake-ec2.ts';

let dir: string;
let fake: ReturnType<typeof installFakeEc2>;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-fake-ec2-'));
});
afterEach(async () => {
  fake.mock.restore();
  await fs.rm(dir, { recursive: true, force: true });
});

const request = {
  cellId: 'cell-north',
  companyKey: 'north',
  profile: 'ops',
  accountId: '123456789012',
  region: 'eu-central-1',
  instanceName: 'north-main',
  clientToken: instanceClientToken('cell-north'),
};

describe('awsCloudProvider', () => {
  it('creates a tagged instance with the client token, finds it by tag, and returns metadata only', async () => {
    fake = installFakeEc2(path.join(dir, 'ec2.json'));
    const provider = awsCloudProvider({ imageId: 'ami-0123456789abcdef0', instanceType: 't3.small', pollIntervalMs: 1 });
    expect(await provider.findInstance(request)).toBeUndefined();
    const created = await provider.runInstance(request);
    expect(created).toEqual({
      instanceId: expect.stringMatching(/^i-/),
      state: 'pending',
      address: '10.0.0.12',
      securityGroups: [{ id: 'sg-0abc1234', name: 'svc-company' }],
    });

    const run = fake.mock.commandCalls(RunInstancesCommand)[0]!.args[0].input;
    expect(run).toMatchObject({
      ImageId: 'ami-0123456789abcdef0',
      InstanceType: 't3.small',
      MinCount: 1,
      MaxCount: 1,
      ClientToken: request.clientToken,
    });
    expect(run.TagSpecifications?.[0]?.Tags).toContainEqual({ Key: 'svc:cell', Value: 'cell-north' });
    expect(request.clientToken.length).toBeLessThanOrEqual(64);

    expect((await provider.findInstance(request))?.instanceId).toBe(created.instanceId);
    expect(await provider.describeInstance(request, created.instanceId)).toMatchObject({ state: 'pending' });
    expect(await provider.describeInstance(request, created.instanceId)).toMatchObject({ state: 'running', address: '203.0.113.7' });
    const search = fake.mock.commandCalls(DescribeInstancesCommand)[0]!.args[0].input;
    expect(search.Filters).toContainEqual({ Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped'] });
  });

  it('gets the first instance again when RunInstances is repeated with the same client token', async () => {
    fake = installFakeEc2(path.join(dir, 'ec2.json'), { tagSearchBlind: true });
    const provider = awsCloudProvider({ imageId: 'ami-0123456789abcdef0', instanceType: 't3.small' });
    const first = await provider.runInstance(request);
    const second = await provider.runInstance(request);
    expect(second.instanceId).toBe(first.instanceId);
    expect(fake.instances()).toHaveLength(1);
    const other = await provider.runInstance({ ...request, cellId: 'cell-south', clientToken: instanceClientToken('cell-south') });
    expect(other.instanceId).not.toBe(first.instanceId);
    // A replacement's generation is a new token: EC2 makes a new instance instead of answering with the dead one.
    const next = instanceClientToken('cell-north', 1);
    expect(next).not.toBe(request.clientToken);
    expect(next.length).toBeLessThanOrEqual(64);
    const replacement = await provider.runInstance({ ...request, clientToken: next });
    expect(replacement.instanceId).not.toBe(first.instanceId);
    expect((await provider.runInstance({ ...request, clientToken: next })).instanceId).toBe(replacement.instanceId);
  });
});
