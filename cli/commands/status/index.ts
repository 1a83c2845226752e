import type { Command } from 'commander';
import { APP_OPTION, type AppOptions, appPath, DIR_OPTION, resolveApp } from '../../util/app-address.ts';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { table } from '../../util/output.ts';

export type AppView = {
  namespace: string;
  slug: string;
  title: string;
  channels: { test: string | null; production: string | null };
  versions: {
    version: string;
    buildLabel: string;
    status: string;
    digest: string;
    size: number;
    createdAt: string;
    notes: string | null;
  }[];
  releases: { channel: string; action: string; from: string | null; to: string; by: string; at: string; notes: string | null }[];
  pages: Record<'test' | 'production', { address: string; about: string }>;
};

const LAST_RELEASES = 5;

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('Show the channels, the versions with their status and the last releases of an app')
    .option(...APP_OPTION)
    .option(...DIR_OPTION)
    .action(withContext(status));
}

async function status(ctx: Context, options: AppOptions): Promise<void> {
  const client = ctx.client();
  const app = await resolveApp(client, options);
  const view = await client.request<AppView>('GET', appPath(app));
  const versionWidth = Math.max((view.channels.test ?? '-').length, (view.channels.production ?? '-').length);
  ctx.out.result(view, () => [
    `${view.title} (${view.namespace}/${view.slug})`,
    `test:        ${(view.channels.test ?? '-').padEnd(versionWidth)}  ${view.pages.test.address}`,
    `production:  ${(view.channels.production ?? '-').padEnd(versionWidth)}  ${view.pages.production.address}`,
    '',
    ...table(
      ['VERSION', 'BUILD', 'STATUS', 'DIGEST', 'CREATED'],
      view.versions.map((v) => [v.version, v.buildLabel, v.status, v.digest.slice(0, 16), v.createdAt.slice(0, 16).replace('T', ' ')]),
    ),
    '',
    view.releases.length ? 'Last releases:' : 'No releases yet.',
    ...table(
      ['WHEN', 'CHANNEL', 'ACTION', 'FROM', 'TO', 'BY', 'NOTES'],
      view.releases
        .slice(-LAST_RELEASES)
        .reverse()
        .map((r) => [r.at.slice(0, 16).replace('T', ' '), r.channel, r.action, r.from ?? '-', r.to, r.by, r.notes ?? '']),
    ).slice(view.releases.length ? 0 : 1),
  ]);
}
