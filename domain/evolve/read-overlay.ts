import type { OverlayView } from '../../schemas/evolve.ts';
import { callerAccess, findChannelVersion } from '../apps/index.ts';
import type { DomainDeps } from '../deps.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { overlayFor } from './overlay-cache.ts';

/**
 * The improvements that apply to the caller on the app (company-wide plus their own personal
 * ones), resolved on the version its channel shows (a ticket's channel; production for keys):
 * whoever may open the app reads their own.
 */
export async function readOverlay(
  deps: Pick<DomainDeps, 'db' | 'clock' | 'principals'>,
  principal: Principal,
  namespace: string,
  slug: string,
): Promise<OverlayView> {
  const channel = principal.kind === 'ticket' ? principal.ticket.channel : 'production';
  const { app, version } = await findChannelVersion(deps.db, namespace, slug, channel);
  authorize(principal, 'app.open', { app, channel, access: await callerAccess(deps, principal, app, channel) });
  return overlayFor(deps, app, version, principal.account.id);
}
