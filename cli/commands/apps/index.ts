import type { Command } from 'commander';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { table } from '../../util/output.ts';

type AppSummary = {
  namespace: string;
  slug: string;
  title: string;
  test: { version: string } | null;
  production: { version: string } | null;
  latest: { version: string; build: number; status?: string };
  updatedAt: string;
};

export function registerApps(program: Command): void {
  const apps = program.command('apps').description('Apps of your company');
  apps.command('list').description('List the apps the key can see').action(withContext(listApps));
}

async function listApps(ctx: Context): Promise<void> {
  const { apps } = await ctx.client().request<{ apps: AppSummary[] }>('GET', '/api/v1/developer/apps');
  ctx.out.result({ apps }, () =>
    apps.length === 0
      ? 'No apps yet: `svc init` and `svc deploy` make the first.'
      : table(
          ['APP', 'TITLE', 'TEST', 'PRODUCTION', 'LATEST', 'UPDATED'],
          apps.map((a) => [
            `${a.namespace}/${a.slug}`,
            a.title,
            a.test?.version ?? '-',
            a.production?.version ?? '-',
            `${a.latest.version} #${a.latest.build}${a.latest.status ? ` ${a.latest.status}` : ''}`,
            a.updatedAt.slice(0, 16).replace('T', ' '),
          ]),
        ),
  );
}
