import { hostname } from 'node:os';
import { isCancel, password, select, text } from '@clack/prompts';
import type { Command } from 'commander';
import open from 'open';
import { browserAvailable } from '../../util/browser.ts';
import type { ApiClient } from '../../util/client.ts';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { CliError, EXIT } from '../../util/errors.ts';
import { revokeStoredKey, type StoredLogin, writeStoredLogin } from '../../util/stored-login.ts';

type IssuedKey = Omit<StoredLogin, 'baseUrl'> & { clientName: string };
type LoginOptions = { password?: boolean; browser: boolean; company?: string };

/** Spec "Limits": three wrong entries in a terminal and the command gives up. */
const MAX_PASSWORD_ENTRIES = 3;
/** RFC 8628 slow_down: a poll that came too early adds five seconds to the interval. */
const SLOW_DOWN_SECONDS = 5;

const clientName = () => `svc CLI on ${hostname()}`.slice(0, 80);

export function registerLogin(program: Command): void {
  program
    .command('login')
    .description('Log in: device login approved in a browser (default), or account and password typed at a prompt')
    .option('--password', 'type account and password at an interactive prompt (never arguments, environment or piped input)')
    .option('--no-browser', 'do not try to open a browser; only show the address and the code')
    .option('--company <cellId>', 'the company the key acts for, when the account has several')
    .action(withContext(login));
}

async function login(ctx: Context, options: LoginOptions): Promise<void> {
  const api = ctx.anonymous();
  const issued = options.password ? await passwordLogin(ctx, api, options) : await deviceLogin(ctx, api, options);
  const previous = ctx.stored;
  const file = await writeStoredLogin({
    baseUrl: ctx.baseUrl,
    key: issued.key,
    keyId: issued.keyId,
    prefix: issued.prefix,
    role: issued.role,
    account: { id: issued.account.id, username: issued.account.username },
    company: { cellId: issued.company.cellId, name: issued.company.name },
  });
  const replacedKeyRevoked = previous ? await revokeReplaced(ctx, previous) : null;
  ctx.out.result(
    {
      baseUrl: ctx.baseUrl,
      account: issued.account,
      company: issued.company,
      role: issued.role,
      keyId: issued.keyId,
      prefix: issued.prefix,
      file,
      replacedKeyRevoked,
    },
    () => [
      `${ctx.out.style('green', '✓')} Logged in to ${ctx.baseUrl} as ${issued.account.username} for ${issued.company.name} (${issued.company.cellId}), ${issued.role}.`,
      `Login stored in ${file} (readable by you only).`,
    ],
  );
}

async function passwordLogin(ctx: Context, api: ApiClient, options: LoginOptions): Promise<IssuedKey> {
  // Spec "Authentication" 4: a prompt only; piped input would put the password in scripts and history.
  if (!process.stdin.isTTY) {
    throw new CliError(
      'svc login --password reads the account and password at an interactive prompt, and stdin is not a terminal. ' +
        'For unattended use set SVC_API_KEY, or run `svc login` (device login).',
      EXIT.usage,
    );
  }
  const prompt = { output: process.stderr };
  let cellId = options.company;
  let account = '';
  for (let entry = 1; entry <= MAX_PASSWORD_ENTRIES; entry += 1) {
    account = answered(await text({ ...prompt, message: 'Account (username or email)', initialValue: account, validate: required }));
    const secret = answered(await password({ ...prompt, message: 'Password', validate: required }));
    for (;;) {
      try {
        return await api.request<IssuedKey>('POST', '/api/v1/developer/password-tokens', {
          body: { login: account, password: secret, clientName: clientName(), ...(cellId ? { cellId } : {}) },
        });
      } catch (error) {
        if (error instanceof CliError && error.extra.code === 'company_required' && cellId === undefined) {
          cellId = await chooseCompany(error.extra.details);
          continue;
        }
        if (error instanceof CliError && error.extra.code === 'invalid_credentials' && entry < MAX_PASSWORD_ENTRIES) {
          ctx.out.note(ctx.out.styleErr('yellow', `${error.message} Try again (${MAX_PASSWORD_ENTRIES - entry} left).`));
          break;
        }
        throw error;
      }
    }
  }
  throw new CliError('Too many wrong entries.', EXIT.failure);
}

function required(value: string | undefined): string | undefined {
  return value ? undefined : 'Required';
}

function answered(value: string | symbol): string {
  if (typeof value !== 'string' || isCancel(value)) throw new CliError('Login cancelled.', EXIT.failure);
  return value;
}

async function chooseCompany(details: unknown): Promise<string> {
  const companies = (details as { companies?: { cellId: string; name: string; role: string }[] } | undefined)?.companies ?? [];
  return answered(
    await select({
      output: process.stderr,
      message: 'This account acts for several companies. Which one should the key act for?',
      options: companies.map((c) => ({ value: c.cellId, label: `${c.name} (${c.cellId})`, hint: c.role })),
    }),
  );
}

type DeviceCode = {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresIn: number;
  interval: number;
};

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

async function deviceLogin(ctx: Context, api: ApiClient, options: LoginOptions): Promise<IssuedKey> {
  if (options.company) {
    throw new CliError('--company applies to --password; with device login the company is chosen on the approval page.', EXIT.usage);
  }
  const code = await api.request<DeviceCode>('POST', '/api/v1/developer/device-codes', { body: { clientName: clientName() } });
  ctx.out.note(`${ctx.out.styleErr('yellow', '!')} First copy your one-time code: ${ctx.out.styleErr('bold', code.userCode)}`);
  ctx.out.note(`Then approve this login at ${code.verificationUriComplete}`);
  if (options.browser && browserAvailable(ctx.env)) {
    ctx.out.note('Opening your browser…');
    await open(code.verificationUriComplete).catch(() => ctx.out.note('Could not open a browser: open the address yourself.'));
  }
  ctx.out.note('Waiting for the approval…');
  let interval = code.interval;
  const deadline = Date.now() + code.expiresIn * 1000;
  while (Date.now() < deadline) {
    await sleep(interval);
    try {
      return await api.request<IssuedKey>('POST', '/api/v1/developer/device-tokens', { body: { deviceCode: code.deviceCode } });
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      if (error.extra.code === 'authorization_pending') continue;
      if (error.extra.code === 'rate_limited') {
        interval += SLOW_DOWN_SECONDS;
        ctx.out.note(`The service asked to poll more slowly: now every ${interval} seconds.`);
        continue;
      }
      if (error.extra.code === 'access_denied') throw new CliError('The login was denied in the browser.', EXIT.failure, error.extra);
      throw error;
    }
  }
  throw new CliError('The code expired before it was approved: run `svc login` again.', EXIT.failure, { code: 'device_code_expired' });
}

/**
 * The login it replaces is over: its key is revoked (with itself, at the service that issued it)
 * so no forgotten key stays valid. Failing to revoke it does not undo the new login; it is said.
 */
async function revokeReplaced(ctx: Context, previous: StoredLogin): Promise<boolean> {
  try {
    await revokeStoredKey(previous);
    return true;
  } catch {
    ctx.out.note(
      `The key ${previous.prefix}… of the replaced login could not be revoked; revoke it with svc keys revoke ${previous.keyId}.`,
    );
    return false;
  }
}
