import { type Command, Option } from 'commander';
import open from 'open';
import { APP_OPTION, type AppOptions, appPath, DIR_OPTION, resolveApp } from '../../util/app-address.ts';
import { browserAvailable } from '../../util/browser.ts';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { CliError, EXIT } from '../../util/errors.ts';
import type { AppView } from '../status/index.ts';

type OpenOptions = AppOptions & { browser?: 'test' | 'production' | true };

export function registerOpen(program: Command): void {
  program
    .command('open')
    .description('Show the app’s test and production addresses (and open one in the browser)')
    .option(...APP_OPTION)
    .option(...DIR_OPTION)
    .addOption(
      new Option('--browser [channel]', 'open the address of this channel in the browser (default: production)').choices([
        'test',
        'production',
      ]),
    )
    .action(withContext(openApp));
}

async function openApp(ctx: Context, options: OpenOptions): Promise<void> {
  const channel = options.browser === true ? 'production' : options.browser;
  const client = ctx.client();
  const app = await resolveApp(client, options);
  const view = await client.request<AppView>('GET', appPath(app));
  const addresses = { test: view.pages.test.address, production: view.pages.production.address };
  const shown = { app, addresses, channels: view.channels };
  const human = () => [
    `test:        ${addresses.test}${view.channels.test ? ` (${view.channels.test})` : ' (nothing in test yet)'}`,
    `production:  ${addresses.production}${view.channels.production ? ` (${view.channels.production})` : ' (nothing published yet)'}`,
  ];
  if (channel && !browserAvailable(ctx.env)) {
    // Asked to open and could not: a failure (exit 1), with the addresses still shown (in the
    // error's details with --json, so stdout stays one document).
    if (!ctx.out.json) ctx.out.result(shown, human);
    throw new CliError(
      `No browser can be opened here (no desktop session: DISPLAY, WAYLAND_DISPLAY and BROWSER are unset): open ${addresses[channel]} yourself.`,
      EXIT.failure,
      { code: 'no_browser', details: shown },
    );
  }
  ctx.out.result(shown, human);
  if (channel) {
    await open(addresses[channel]).catch((error: Error) => {
      throw new CliError(`Could not open a browser: ${error.message}`, EXIT.failure);
    });
  }
}
