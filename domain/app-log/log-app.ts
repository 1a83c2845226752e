import { problem } from '../../schemas/problems.ts';
import { callerAccess, findHostedApp, type HostedApp } from '../apps/index.ts';
import type { Channel, DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

export interface SendingApp {
  app: HostedApp;
  /** What the visitor runs: known from an app ticket, unknown for a key. */
  versionId: string | null;
  channel: Channel | null;
}

/**
 * The app an event is sent for, once the policy lets the caller send to it (log.write: anyone who
 * may open the app; a key of a member who cannot open a restricted app is refused): an app
 * ticket's own app (the path's namespace must be its), or with a key the app named by `slug`,
 * judged on the production channel.
 */
export async function appForSending(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  slug: string | undefined,
): Promise<SendingApp> {
  const t = principal.kind === 'ticket' ? principal.ticket : null;
  const app = await namedApp(deps.db, namespace, slug ?? t?.slug);
  const channel = t?.channel ?? 'production';
  authorize(principal, 'log.write', { app, channel, access: await callerAccess(deps, principal, app, channel) });
  return { app, versionId: t?.versionId ?? null, channel: t?.channel ?? null };
}

async function namedApp(db: DbOrTrx, namespace: string, slug: string | undefined): Promise<HostedApp> {
  if (slug === undefined) {
    throw new DomainError('invalid_payload', 'Name the app with slug (or send with the app’s ticket).', {
      details: { problems: [problem('slug', 'required', 'required with a key')] },
    });
  }
  const app = await findHostedApp(db, namespace, slug);
  if (!app) throw new DomainError('app_not_found', `No app ${namespace}/${slug}.`);
  return app;
}

/** Reading the log and handling feedback is for the namespace's developers (company.manage: by key or web session; platform staff for `public`). */
export function assertLogReader(principal: Principal, namespace: string): void {
  authorize(principal, 'company.manage', { namespace });
}

/** The app a developer reads the log of. */
export async function appForReading(db: DbOrTrx, principal: Principal, namespace: string, slug: string): Promise<HostedApp> {
  assertLogReader(principal, namespace);
  return namedApp(db, namespace, slug);
}

/** The log a developer reads: one app's (its id), or every app's of the namespace (null). */
export async function logScope(db: DbOrTrx, principal: Principal, namespace: string, slug: string | undefined): Promise<string | null> {
  if (slug !== undefined) return (await appForReading(db, principal, namespace, slug)).id;
  assertLogReader(principal, namespace);
  return null;
}
