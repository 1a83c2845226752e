import type { Command } from 'commander';
import type { ListedApp } from '../../../schemas/apps.ts';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';

export function registerApps(program: Command): void {
  const apps = program.command('apps').description('Apps of your company');
  apps.command('list').description('List the apps the key can see, with their versions and addresses').action(withContext(listApps));
}

async function listApps(ctx: Context): Promise<void> {
  const { apps } = await ctx.client().request<{ apps: ListedApp[] }>('GET', '/api/v1/developer/apps');
  ctx.out.result({ apps }, () =>
    apps.length === 0
      ? 'No apps yet: `svc init` and `svc deploy` make the first.'
      : apps.flatMap((a, i) => {
          // The channel lines of `svc status`, one block per app.
          const width = Math.max((a.test?.version ?? '-').length, (a.production?.version ?? '-').length);
          const latest = `${a.latest.version} #${a.latest.build}${a.latest.status ? ` ${a.latest.status}` : ''}`;
          return [
            ...(i > 0 ? [''] : []),
            `${a.namespace}/${a.slug}  ${a.title}  (latest ${latest}, ${a.updatedAt.slice(0, 16).replace('T', ' ')})`,
            `  test:        ${(a.test?.version ?? '-').padEnd(width)}  ${a.addresses.test}`,
            `  production:  ${(a.production?.version ?? '-').padEnd(width)}  ${a.addresses.production}`,
          ];
        }),
  );
}
