import type { DomainDeps } from '../deps.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { type AppTarget, rememberedAccessToApp } from './access-to-app.ts';

/**
 * The app's channel as this caller may use it, by the app-open rule: the app, the version the
 * channel shows and the caller's app role; 403 with the reason when the policy refuses (app.call).
 */
export async function reachApp(deps: Pick<DomainDeps, 'db' | 'clock' | 'principals'>, principal: Principal, target: AppTarget) {
  const { app, version, access } = await rememberedAccessToApp(deps, principal, target);
  authorize(principal, 'app.call', { app, channel: target.channel, access });
  if (!access.allowed) throw new Error('unreachable: app.call admits only callers who may open the app');
  return { app, version, access };
}

/** A ticket (or an app token) is for its own channel; other credentials name one (production by default). */
export function targetOf(principal: Principal, named: { namespace: string; slug: string; channel?: AppTarget['channel'] | undefined }) {
  const channel = principal.kind === 'ticket' ? principal.ticket.channel : (named.channel ?? 'production');
  return { namespace: named.namespace, slug: named.slug, channel };
}
