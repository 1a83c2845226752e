import type { Command } from 'commander';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';

export type Me = {
  account: { id: string; username: string; email: string; platformStaff: boolean };
  company: { cellId: string; name: string };
  role: 'developer' | 'member';
  keyPrefix: string;
  writableNamespaces: string[];
};

export function registerWhoami(program: Command): void {
  program.command('whoami').description('Show the account, company and role behind the credential').action(withContext(whoami));
}

async function whoami(ctx: Context): Promise<void> {
  const me = await ctx.client().request<Me>('GET', '/api/v1/developer/me');
  ctx.out.result({ ...me, baseUrl: ctx.baseUrl }, () => [
    `${me.account.username} <${me.account.email}>${me.account.platformStaff ? ' (platform staff)' : ''}`,
    `company:   ${me.company.name} (${me.company.cellId})`,
    `role:      ${me.role}`,
    `key:       ${me.keyPrefix}…`,
    `service:   ${ctx.baseUrl}`,
  ]);
}
