import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { CELL_TAG, type CloudProvider, type InstanceMetadata } from '../../domain/provisioning/index.ts';

// The default cloud for `npm start`: a simulated instance per company, one JSON file per client
// token in the data folder, so the whole flow runs on one machine without an account. It keeps
// EC2's promises that matter here: one instance per client token, found again by its tag.

interface LocalInstance extends InstanceMetadata {
  tags: Record<string, string>;
}

export function localCloudProvider(opts: { dir: string; pollIntervalMs?: number }): CloudProvider {
  const file = (clientToken: string) => path.join(opts.dir, `${clientToken}.json`);
  const readAll = async (): Promise<LocalInstance[]> => {
    const names = await fs.readdir(opts.dir).catch(() => []);
    const all = await Promise.all(
      names
        .filter((n) => n.endsWith('.json'))
        .map(async (n) => JSON.parse(await fs.readFile(path.join(opts.dir, n), 'utf8')) as LocalInstance),
    );
    return all;
  };
  const publicView = ({ tags: _tags, ...metadata }: LocalInstance): InstanceMetadata => metadata;
  return {
    kind: 'local',
    pollIntervalMs: opts.pollIntervalMs ?? 50,
    async findInstance(r) {
      const found = (await readAll()).find((i) => i.tags[CELL_TAG] === r.cellId && i.state !== 'terminated');
      return found && publicView(found);
    },
    async runInstance(r) {
      await fs.mkdir(opts.dir, { recursive: true });
      const id = createHash('sha256').update(r.clientToken).digest('hex').slice(0, 17);
      const instance: LocalInstance = {
        instanceId: `i-${id}`,
        state: 'pending',
        address: '127.0.0.1',
        securityGroups: [{ id: `sg-${id.slice(0, 8)}`, name: `${r.companyKey}-local` }],
        tags: { Name: r.instanceName, [CELL_TAG]: r.cellId },
      };
      try {
        await fs.writeFile(file(r.clientToken), JSON.stringify(instance), { flag: 'wx' });
        return publicView(instance);
      } catch (err) {
        // The same client token again: the instance made by the first call, as EC2 answers.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        return publicView(JSON.parse(await fs.readFile(file(r.clientToken), 'utf8')));
      }
    },
    async describeInstance(r, instanceId) {
      const target = file(r.clientToken);
      const instance = JSON.parse(await fs.readFile(target, 'utf8')) as LocalInstance;
      if (instance.instanceId !== instanceId) throw new Error(`instance ${instanceId} not found`);
      // A simulated boot: pending the first time it is looked at, running from then on.
      if (instance.state === 'pending') {
        await fs.writeFile(`${target}.tmp`, JSON.stringify({ ...instance, state: 'running' }));
        await fs.rename(`${target}.tmp`, target);
      }
      return publicView(instance);
    },
  };
}
