import type { Command } from 'commander';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { CliError } from '../../util/errors.ts';
import { removeStoredLogin, revokeStoredKey, storedLoginPath } from '../../util/stored-login.ts';

export function registerLogout(program: Command): void {
  program
    .command('logout')
    .description('Revoke the key of the stored login for this service and remove that login (logins to other services stay)')
    .action(withContext(logout));
}

async function logout(ctx: Context): Promise<void> {
  const stored = ctx.stored;
  if (!stored) {
    ctx.out.result({ loggedOut: false, baseUrl: ctx.baseUrl }, () => `Not logged in to ${ctx.baseUrl}: nothing to do.`);
    return;
  }
  // Revoked with itself, at the service that issued it. A key already revoked (or unknown) is
  // not a reason to keep the file: the login is over either way.
  let revoked = true;
  try {
    await revokeStoredKey(stored);
  } catch (error) {
    if (!(error instanceof CliError) || error.extra.status === undefined || error.extra.status >= 500) throw error;
    revoked = false;
  }
  await removeStoredLogin(stored.baseUrl);
  ctx.out.result({ loggedOut: true, baseUrl: stored.baseUrl, keyRevoked: revoked, keyId: stored.keyId, file: storedLoginPath() }, () =>
    revoked
      ? `Logged out of ${stored.baseUrl}: key ${stored.prefix}… revoked and the login removed from ${storedLoginPath()}.`
      : `Logged out of ${stored.baseUrl}: the login removed from ${storedLoginPath()} (the key was no longer valid).`,
  );
}
