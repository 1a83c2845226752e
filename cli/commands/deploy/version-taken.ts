import { confirm, isCancel } from '@clack/prompts';
import { type AppAddress, appPath } from '../../util/app-address.ts';
import type { ApiClient } from '../../util/client.ts';
import type { Context } from '../../util/context.ts';
import { CliError, EXIT } from '../../util/errors.ts';
import { bumpVersion } from '../../util/version-bump.ts';

type AppView = { versions: { version: string; build: number; digest: string }[] };

/** A version number the app holds with other content, and the next patch number that is free. */
export type TakenVersion = { version: string; build: number; next: string };

/** Whether `version` already holds other content than `digest` (one small request). */
export async function takenVersion(client: ApiClient, app: AppAddress, version: string, digest: string): Promise<TakenVersion | undefined> {
  const view = await client.request<AppView>('GET', appPath(app)).catch((error: unknown) => {
    // No such app yet: every number is free.
    if (error instanceof CliError && error.extra.code === 'app_not_found') return undefined;
    throw error;
  });
  const held = view?.versions.find((v) => v.version === version);
  if (!view || !held || held.digest === digest) return undefined;
  const numbers = new Set(view.versions.map((v) => v.version));
  let next = bumpVersion(version, 'patch');
  while (numbers.has(next)) next = bumpVersion(next, 'patch');
  return { version, build: held.build, next };
}

/** The refusal, as the service's version_conflict, with the way out. */
export function versionConflict(taken: TakenVersion, extra: CliError['extra'] = {}): CliError {
  return new CliError(
    `Version ${taken.version} already holds different content (build #${taken.build}): ` +
      `raise the version; svc deploy --bump patch deploys it as ${taken.next}.`,
    EXIT.failure,
    { code: 'version_conflict', ...extra, details: { version: taken.version, build: taken.build, next: taken.next } },
  );
}

/** Whether a person can be asked: stdin, stdout and stderr are a terminal, and no --json. */
export const canAsk = (ctx: Context) => ctx.out.interactive && process.stdin.isTTY === true;

/** The version to deploy instead of a taken one, asked at the terminal (Enter or y: the next free patch number); on no, the refusal. */
export async function versionInstead(taken: TakenVersion): Promise<string> {
  const answer = await confirm({
    output: process.stderr,
    message: `${taken.version} already holds different content. Deploy as ${taken.next}? [Y/n]`,
    initialValue: true,
  });
  if (isCancel(answer)) throw new CliError('Deploy cancelled; nothing was sent.', EXIT.failure);
  if (!answer) throw versionConflict(taken);
  return taken.next;
}
