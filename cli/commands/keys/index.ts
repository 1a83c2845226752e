import type { Command } from 'commander';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { table } from '../../util/output.ts';

type KeySummary = {
  keyId: string;
  prefix: string;
  role: string;
  clientName: string;
  company: { cellId: string; name: string };
  createdAt: string;
  lastUsedAt: string | null;
  current: boolean;
};

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('Your developer keys');
  keys.command('list').description('List your keys that are not revoked (prefix only)').action(withContext(listKeys));
  keys
    .command('revoke')
    .description('Revoke one of your keys')
    .argument('<keyId>', 'the key’s id (see `svc keys list`)')
    .action(withContext(revokeKey));
}

async function listKeys(ctx: Context): Promise<void> {
  const { keys } = await ctx.client().request<{ keys: KeySummary[] }>('GET', '/api/v1/developer/keys');
  ctx.out.result({ keys }, () =>
    keys.length === 0
      ? 'No keys.'
      : table(
          ['ID', 'PREFIX', 'ROLE', 'COMPANY', 'CLIENT', 'CREATED', 'LAST USED'],
          keys.map((k) => [
            `${k.keyId}${k.current ? ' *' : ''}`,
            `${k.prefix}…`,
            k.role,
            k.company.cellId,
            k.clientName,
            k.createdAt.slice(0, 16).replace('T', ' '),
            k.lastUsedAt?.slice(0, 16).replace('T', ' ') ?? '-',
          ]),
        ),
  );
}

async function revokeKey(ctx: Context, keyId: string): Promise<void> {
  const result = await ctx
    .client()
    .request<{ keyId: string; alreadyRevoked: boolean }>('DELETE', `/api/v1/developer/keys/${encodeURIComponent(keyId)}`);
  ctx.out.result(result, () => (result.alreadyRevoked ? `Key ${keyId} was already revoked.` : `Key ${keyId} revoked.`));
}
