import { currentVersionId, findHostedApp } from '../apps/index.ts';
import type { Channel, DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { ticketAdmits } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import type { DataAccess } from './data-access.ts';

// The app a caller acts through, whose app log gets the action/<Action> record: a ticket's own
// app, or the app a key or session names with `x-svc-app: <namespace>/<slug>`; none otherwise.

export interface ActingApp {
  appId: string;
  versionId: string | null;
  channel: Channel;
}

export const APP_HEADER = 'x-svc-app';
const APP_REF = /^(cell-[a-z0-9][a-z0-9-]{1,62}|public)\/([a-z][a-z0-9-]{1,47})$/;

/** The header's `<namespace>/<slug>`, or invalid_payload naming the header. */
export function parseAppHeader(value: string): { namespace: string; slug: string } | null {
  if (value === '') return null;
  const m = APP_REF.exec(value);
  if (!m) {
    throw new DomainError('invalid_payload', `${APP_HEADER} must be <namespace>/<slug>.`, {
      details: { problems: [{ path: `headers.${APP_HEADER}`, code: 'invalid_string', message: 'must be <namespace>/<slug>' }] },
    });
  }
  return { namespace: m[1]!, slug: m[2]! };
}

/** `access`: the caller's data access in the ontology's company, whose `openApps` say which apps it may name. */
export async function findActingApp(
  db: DbOrTrx,
  principal: Principal,
  named: { namespace: string; slug: string } | null,
  cellId: string,
  access: DataAccess,
): Promise<ActingApp | null> {
  if (principal.kind === 'ticket') {
    const t = principal.ticket;
    if (named && !ticketAdmits(principal, named)) {
      throw new DomainError('forbidden', `This app ticket acts for ${t.namespace}/${t.slug} only.`, {
        details: { namespace: t.namespace, slug: t.slug },
      });
    }
    return ticketAdmits(principal, { namespace: cellId }) ? { appId: t.appId, versionId: t.versionId, channel: t.channel } : null;
  }
  if (!named) return null;
  if (named.namespace !== cellId) {
    throw new DomainError('forbidden', `${APP_HEADER} must name an app of ${cellId}, the ontology's company.`, {
      details: { namespace: named.namespace },
    });
  }
  const app = await findHostedApp(db, named.namespace, named.slug);
  if (!app) throw new DomainError('app_not_found', `No app ${named.namespace}/${named.slug}.`, { details: named });
  // Only an app the caller may open has it as a visitor, and so its log.
  if (access.openApps !== 'all' && !access.openApps?.has(named.slug)) {
    throw new DomainError('forbidden', `You cannot open ${named.namespace}/${named.slug}, so you cannot act through it.`, {
      details: named,
    });
  }
  return { appId: app.id, versionId: (await currentVersionId(db, app.id, 'production')) ?? null, channel: 'production' };
}
