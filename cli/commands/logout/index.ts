import type { Command } from 'commander';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { CliError } from '../../util/errors.ts';
import { removeStoredLogin, revokeStoredKey, storedLoginPath } from '../../util/stored-login.ts';

export function registerLogout(program: Command): void {
  program
    .command('logout')
    .description('Revoke the stored login’s key on the service and remove the stored login')
    .action(withContext(logout));
}

async function logout(ctx: Context): Promise<void> {
  const stored = ctx.stored;
  if (!stored) {
    ctx.out.result({ loggedOut: false }, () => 'Not logged in: nothing to do.');
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
  await removeStoredLogin();
  ctx.out.result({ loggedOut: true, keyRevoked: revoked, keyId: stored.keyId, file: storedLoginPath() }, () =>
    revoked
      ? `Logged out: key ${stored.prefix}… revoked and ${storedLoginPath()} removed.`
      : `Logged out: ${storedLoginPath()} removed (the key was no longer valid).`,
  );
}
