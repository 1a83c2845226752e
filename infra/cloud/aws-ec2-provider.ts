import {
  DescribeInstancesCommand,
  type DescribeInstancesCommandInput,
  EC2Client,
  type Instance,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import { CELL_TAG, type CloudProvider, type InstanceMetadata, type InstanceRequest } from '../../domain/provisioning/index.ts';

// The cloud provider on AWS EC2 (SDK v3). Credentials come from the standard chain of the
// worker's machine under the request's profile (environment, shared files, SSO, instance role);
// the service never sees or stores them. Only metadata leaves this module.

export interface AwsProviderOptions {
  /** The machine image new instances start from (SVC_AWS_IMAGE_ID). */
  imageId: string;
  instanceType: string;
  pollIntervalMs?: number;
}

const LIVE_STATES = ['pending', 'running', 'stopping', 'stopped'];

function toMetadata(instance: Instance): InstanceMetadata {
  return {
    instanceId: instance.InstanceId ?? '',
    state: instance.State?.Name ?? 'unknown',
    address: instance.PublicIpAddress ?? instance.PrivateIpAddress ?? null,
    securityGroups: (instance.SecurityGroups ?? []).map((g) => ({ id: g.GroupId ?? '', name: g.GroupName ?? '' })),
  };
}

export function awsCloudProvider(opts: AwsProviderOptions): CloudProvider {
  const clients = new Map<string, EC2Client>();
  const client = (r: InstanceRequest) => {
    const key = `${r.profile}@${r.region}`;
    let c = clients.get(key);
    if (!c) {
      c = new EC2Client({ region: r.region, profile: r.profile });
      clients.set(key, c);
    }
    return c;
  };
  const describe = async (r: InstanceRequest, input: DescribeInstancesCommandInput) => {
    const out = await client(r).send(new DescribeInstancesCommand(input));
    return (out.Reservations ?? []).flatMap((res) => res.Instances ?? []);
  };
  return {
    kind: 'aws',
    pollIntervalMs: opts.pollIntervalMs ?? 5000,
    async findInstance(r) {
      const found = await describe(r, {
        Filters: [
          { Name: `tag:${CELL_TAG}`, Values: [r.cellId] },
          { Name: 'instance-state-name', Values: LIVE_STATES },
        ],
      });
      return found[0] && toMetadata(found[0]);
    },
    async runInstance(r) {
      const out = await client(r).send(
        new RunInstancesCommand({
          ImageId: opts.imageId,
          InstanceType: opts.instanceType as never,
          MinCount: 1,
          MaxCount: 1,
          ClientToken: r.clientToken,
          TagSpecifications: [
            {
              ResourceType: 'instance',
              Tags: [
                { Key: 'Name', Value: r.instanceName },
                { Key: CELL_TAG, Value: r.cellId },
                { Key: 'svc:company-key', Value: r.companyKey },
                { Key: 'svc:account', Value: r.accountId },
              ],
            },
          ],
        }),
      );
      const instance = out.Instances?.[0];
      if (!instance?.InstanceId) throw new Error('RunInstances returned no instance');
      return toMetadata(instance);
    },
    async describeInstance(r, instanceId) {
      const [instance] = await describe(r, { InstanceIds: [instanceId] });
      if (!instance) throw new Error(`instance ${instanceId} not found`);
      return toMetadata(instance);
    },
  };
}
