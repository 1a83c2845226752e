import type { Command } from 'commander';
import { APP_OPTION, type AppAddress, type AppOptions, appPath, DIR_OPTION, resolveApp } from './app-address.ts';
import type { ApiClient } from './client.ts';
import { withContext } from './command.ts';
import type { Context } from './context.ts';
import { lastUpload } from './folder-state.ts';

/** The app's page addresses, as the service describes them (schemas/apps.ts AppView.pages). */
type PageAddresses = Record<'test' | 'production', { address: string }>;

const CHANNEL_LABEL = { test: 'Test', production: 'Production' } as const;

/** The line naming a channel's address, e.g. `Test: http://…/d/cell-acme/apps/hello`. */
const addressLine = (channel: 'test' | 'production', pages: PageAddresses) => `${CHANNEL_LABEL[channel]}: ${pages[channel].address}`;

/** The app's test and production addresses, read from the service (never built here). */
async function readPageAddresses(client: ApiClient, app: AppAddress): Promise<PageAddresses> {
  return (await client.request<{ pages: PageAddresses }>('GET', appPath(app))).pages;
}

type ChannelChange = { channel: 'test' | 'production'; action: string | null; from: string | null; to: string; changed: boolean };
type ChannelOptions = AppOptions & { notes?: string; dryRun?: boolean };

const ACTION_WORDS: Record<string, string> = { enter_test: 'entered test', publish: 'published', rollback: 'rolled back' };

/** `svc test`, `svc publish` and `svc rollback`: one channel move each, with the same options. */
export function channelCommand(
  program: Command,
  spec: { name: string; channel: 'test' | 'production'; description: string; argument: [string, string] },
): Command {
  return program
    .command(spec.name)
    .description(spec.description)
    .argument(...spec.argument)
    .option(...APP_OPTION)
    .option(...DIR_OPTION)
    .option('--notes <text>', 'notes for the release record')
    .option('--dry-run', 'check the move and show the plan; nothing changes')
    .action(
      withContext((ctx: Context, version: string | undefined, options: ChannelOptions) => moveChannel(ctx, spec.channel, version, options)),
    );
}

async function moveChannel(
  ctx: Context,
  channel: 'test' | 'production',
  version: string | undefined,
  options: ChannelOptions,
): Promise<void> {
  const client = ctx.client();
  const app = await resolveApp(client, options);
  if (channel === 'test' && version === undefined && options.app === undefined) {
    // The folder's own last upload, not the app's newest (which may come from another folder).
    const last = await lastUpload(options.dir ?? '.', ctx.baseUrl, app);
    if (last) version = `#${last.build}`;
    else
      ctx.out.note(
        `This folder has uploaded nothing to ${ctx.baseUrl} yet: the newest upload of ${app.namespace}/${app.slug} enters test.`,
      );
  }
  const answer = await client.request<ChannelChange | { dryRun: true; plan: unknown }>('POST', `${appPath(app)}/channels/${channel}`, {
    body: { ...(version !== undefined ? { version } : {}), ...(options.notes !== undefined ? { notes: options.notes } : {}) },
    dryRun: options.dryRun,
  });
  if ('dryRun' in answer) {
    ctx.out.result({ app, ...answer }, () => `Dry run: ${channel} of ${app.namespace}/${app.slug} can move; nothing changed.`);
    return;
  }
  const pages = await readPageAddresses(client, app);
  ctx.out.result({ app, ...answer, address: pages[channel].address }, () => [
    answer.changed
      ? `${ctx.out.style('green', '✓')} ${app.namespace}/${app.slug} ${channel}: ${answer.from ?? '(none)'} → ${answer.to} (${ACTION_WORDS[answer.action ?? ''] ?? answer.action})`
      : `${app.namespace}/${app.slug} ${channel} is already at ${answer.to}; nothing changed.`,
    addressLine(channel, pages),
  ]);
}
