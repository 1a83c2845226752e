import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { type AppTarget, accessToApp } from '../hosting/open-app.ts';
import type { Principal } from '../principal.ts';

/**
 * The app's channel as this caller may use it, by the one access check: the app, the version the
 * channel shows and the caller's app role; 403 with the reason when the caller cannot open it.
 */
export async function reachApp(deps: DomainDeps, principal: Principal, target: AppTarget) {
  const { app, version, access } = await accessToApp(deps, principal, target);
  if (!access.allowed) throw new DomainError('forbidden', `${access.message} ${access.remedy}`, { details: { reason: access.reason } });
  return { app, version, access };
}

/** A ticket (or an app token) is for its own channel; other credentials name one (production by default). */
export function targetOf(principal: Principal, named: { namespace: string; slug: string; channel?: AppTarget['channel'] | undefined }) {
  const channel = principal.kind === 'ticket' ? principal.ticket.channel : (named.channel ?? 'production');
  return { namespace: named.namespace, slug: named.slug, channel };
}
