import { callerAccess, findHostedApp } from '../apps/index.ts';
import type { Channel, DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

/**
 * The app a workflow call names, once the policy lets this caller do `action` there: by its role
 * in the app (a ticket's own role, the app-open rule for keys: a member key and a restricted app
 * it cannot open are refused), on the channel it uses (a ticket: its own; others: the one named,
 * production by default).
 */
export async function appOfCaller(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  address: { namespace: string; slug: string; channel?: Channel | undefined },
  action: 'app.workflow.run' | 'app.workflow.read-runs',
) {
  const app = await findHostedApp(deps.db, address.namespace, address.slug);
  if (!app) throw new DomainError('app_not_found', `No app ${address.namespace}/${address.slug}.`, { details: address });
  const channel = principal.kind === 'ticket' ? principal.ticket.channel : (address.channel ?? 'production');
  authorize(principal, action, { app, channel, access: await callerAccess(deps, principal, app, channel) });
  return { app, channel };
}
