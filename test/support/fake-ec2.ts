import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeInstancesCommand, EC2Client, type Filter, type Instance, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';

// EC2 at the AWS boundary: aws-sdk-client-mock answers the SDK's commands from a small fake
// that keeps EC2's promises the service relies on. RunInstances with a ClientToken already used
// returns the instance of the first call (EC2's idempotency); DescribeInstances filters by tag
// and state; an instance is pending until it has been looked at by id once. The state is a
// JSON file, so a worker in another process (killed mid-step) shares the same account.

interface FakeInstance {
  id: string;
  clientToken: string;
  state: string;
  tags: Record<string, string>;
}

export interface FakeEc2Options {
  /** Like EC2's eventual consistency at its worst: tag searches never see new instances, only the ClientToken protects. */
  tagSearchBlind?: boolean;
  /** Called after an instance was created and recorded, before RunInstances answers. */
  afterCreate?: () => void;
}

export function installFakeEc2(stateFile: string, opts: FakeEc2Options = {}) {
  const load = (): FakeInstance[] => {
    try {
      return JSON.parse(readFileSync(stateFile, 'utf8'));
    } catch {
      return [];
    }
  };
  const save = (all: FakeInstance[]) => {
    writeFileSync(`${stateFile}.tmp`, JSON.stringify(all));
    renameSync(`${stateFile}.tmp`, stateFile);
  };
  const view = (i: FakeInstance): Instance => ({
    InstanceId: i.id,
    State: { Name: i.state as never },
    PrivateIpAddress: '10.0.0.12',
    PublicIpAddress: i.state === 'running' ? '203.0.113.7' : undefined,
    SecurityGroups: [{ GroupId: 'sg-0abc1234', GroupName: 'svc-company' }],
    Tags: Object.entries(i.tags).map(([Key, Value]) => ({ Key, Value })),
  });
  const matches = (i: FakeInstance, filters: Filter[]) =>
    filters.every((f) =>
      f.Name === 'instance-state-name'
        ? f.Values?.includes(i.state)
        : f.Name?.startsWith('tag:')
          ? !opts.tagSearchBlind && f.Values?.includes(i.tags[f.Name.slice(4)] ?? '')
          : false,
    );

  const mock = mockClient(EC2Client);
  mock.on(RunInstancesCommand).callsFake((input) => {
    const all = load();
    const earlier = all.find((i) => i.clientToken === input.ClientToken);
    if (earlier) return { Instances: [view(earlier)] };
    const tags = Object.fromEntries(
      (input.TagSpecifications?.[0]?.Tags ?? []).map((t: { Key: string; Value: string }) => [t.Key, t.Value]),
    );
    const created = { id: `i-${randomBytes(8).toString('hex')}`, clientToken: input.ClientToken ?? '', state: 'pending', tags };
    save([...all, created]);
    opts.afterCreate?.();
    return { Instances: [view(created)] };
  });
  mock.on(DescribeInstancesCommand).callsFake((input) => {
    const all = load();
    let found: FakeInstance[];
    if (input.InstanceIds) {
      found = all.filter((i) => input.InstanceIds.includes(i.id));
      const shown = found.map(view);
      for (const i of found) if (i.state === 'pending') i.state = 'running';
      save(all);
      return { Reservations: [{ Instances: shown }] };
    }
    found = all.filter((i) => matches(i, input.Filters ?? []));
    return { Reservations: found.length ? [{ Instances: found.map(view) }] : [] };
  });
  /** What happens outside svc: someone terminates or stops an instance in the console. */
  const setState = (id: string, state: string) => save(load().map((i) => (i.id === id ? { ...i, state } : i)));
  return { mock, instances: load, setState };
}
