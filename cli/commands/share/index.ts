import { type Command, Option } from 'commander';
import type { ShareView } from '../../../schemas/sharing.ts';
import { APP_OPTION, type AppAddress, type AppOptions, DIR_OPTION, resolveApp } from '../../util/app-address.ts';
import { cellId, wholeNumber } from '../../util/arguments.ts';
import type { ApiClient } from '../../util/client.ts';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { CliError, EXIT } from '../../util/errors.ts';
import { table } from '../../util/output.ts';

type DryRunOption = { dryRun?: true };
type ShareOptions = AppOptions &
  DryRunOption & {
    user?: string;
    company?: string | true;
    public?: true;
    expiresInDays?: number;
  };
type Created = { share: ShareView; created: boolean; url?: string };
type Revoked = { share: ShareView; revoked: true; alreadyRevoked: boolean };
type DryRun = { dryRun: true; plan: unknown };

const SHARES = '/api/v1/developer/shares';
/** --user, --company and --public each name the one audience of a new share. */
const others = (target: string) => ['user', 'company', 'public'].filter((t) => t !== target);

export function registerShare(program: Command): void {
  const share = program
    .command('share')
    .description('List the shares of an app, or share it with an account (--user), the company (--company) or a public link (--public)')
    .option(...APP_OPTION)
    .option(...DIR_OPTION)
    .addOption(
      new Option('--user <login>', 'share with this account (username, email or account id; any company), as editor').conflicts(
        others('user'),
      ),
    )
    .addOption(
      new Option(
        '--company [cellId]',
        'share with the members of the app’s company (a restricted app opens to them), or of another company by its cell id (as editors, production only)',
      )
        .conflicts(others('company'))
        .argParser(cellId),
    )
    .addOption(new Option('--public', 'make a new public link: login required, production read-only').conflicts(others('public')))
    .addOption(
      new Option('--expires-in-days <days>', 'with --user or --company: the share ends after this many days').argParser(
        wholeNumber(1, 3650),
      ),
    )
    .option('--dry-run', 'check the share and show the plan; nothing changes')
    .action(withContext(shareApp));
  share
    .command('revoke')
    .description('Revoke a share by its id (see `svc share`): the link or grant stops at once')
    .argument('<id>', 'the share’s id (shr_…)')
    .option('--dry-run', 'check the revoke; nothing changes')
    // `share` has a --dry-run of its own, which commander gives the parent wherever it is written.
    .action(withContext((ctx: Context, id: string, options: DryRunOption) => revokeShare(ctx, id, options.dryRun ?? share.opts().dryRun)));
}

async function shareApp(ctx: Context, options: ShareOptions): Promise<void> {
  const client = ctx.client();
  const app = await resolveApp(client, options);
  const audience = options.user !== undefined ? 'users' : options.company !== undefined ? 'company' : options.public ? 'public' : undefined;
  if (audience === undefined) {
    if (options.expiresInDays !== undefined || options.dryRun)
      throw usage('--expires-in-days and --dry-run go with --user, --company or --public.');
    return listShares(ctx, client, app);
  }
  if (options.expiresInDays !== undefined && audience === 'public') throw usage('--expires-in-days goes with --user or --company.');
  const answer = await client.request<Created | DryRun>('POST', SHARES, {
    body: {
      ...app,
      audience,
      ...(options.user !== undefined ? { account: options.user } : {}),
      ...(typeof options.company === 'string' ? { company: options.company } : {}),
      ...(options.expiresInDays !== undefined ? { expiresInDays: options.expiresInDays } : {}),
    },
    dryRun: options.dryRun,
  });
  if ('dryRun' in answer) {
    ctx.out.result({ app, ...answer }, () => `Dry run: ${app.namespace}/${app.slug} can be shared so; nothing changed.`);
    return;
  }
  const { share, created, url } = answer;
  ctx.out.result({ app, ...answer }, () => [
    `${ctx.out.style('green', '✓')} ${app.namespace}/${app.slug} ${created ? 'shared with' : 'share updated for'} ${audienceText(share)} as ${share.role} (${share.id})`,
    ...(url ? [`Link: ${url}`, 'The link is shown only now: the service keeps its hash.'] : []),
  ]);
}

async function listShares(ctx: Context, client: ApiClient, app: AppAddress): Promise<void> {
  const { shares } = await client.request<{ shares: ShareView[] }>('GET', SHARES, { query: { ...app } });
  ctx.out.result({ app, shares }, () =>
    shares.length === 0
      ? `${app.namespace}/${app.slug} is shared with no one: \`svc share --user <login>\`, \`--company\` or \`--public\` shares it.`
      : table(
          ['ID', 'WITH', 'ROLE', 'EXPIRES', 'CREATED'],
          shares.map((s) => [s.id, audienceText(s), s.role, s.expiresAt ? day(s.expiresAt) : '-', day(s.createdAt)]),
        ),
  );
}

async function revokeShare(ctx: Context, id: string, dryRun: boolean | undefined): Promise<void> {
  const answer = await ctx.client().request<Revoked | DryRun>('DELETE', `${SHARES}/${encodeURIComponent(id)}`, { dryRun });
  if ('dryRun' in answer) {
    ctx.out.result(answer, () => `Dry run: share ${id} can be revoked; nothing changed.`);
    return;
  }
  ctx.out.result(answer, () =>
    answer.alreadyRevoked
      ? `Share ${id} (${audienceText(answer.share)}) was already revoked.`
      : `${ctx.out.style('green', '✓')} Share ${id} (${audienceText(answer.share)}) revoked: it stops at once.`,
  );
}

/** Whom a share is with, as a person reads it. */
function audienceText(share: ShareView): string {
  if (share.audience === 'users') return share.account?.username ?? 'an account';
  if (share.audience === 'company') return share.company ? `${share.company.name} (${share.company.cellId})` : 'a company';
  return `public link ${share.linkPrefix ?? ''}…`;
}

const day = (iso: string) => iso.slice(0, 16).replace('T', ' ');

const usage = (message: string) => new CliError(message, EXIT.usage, { code: 'invalid_option' });
