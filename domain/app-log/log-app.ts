import { problem } from '../../schemas/problems.ts';
import { assertCanRead, PUBLIC_NAMESPACE } from '../apps/namespace-access.ts';
import { findLicense } from '../companies/repository.ts';
import type { Channel, DbOrTrx } from '../db/database.ts';
import { DomainError } from '../errors.ts';
import { findHostedApp, type HostedApp } from '../hosting/repository.ts';
import type { Principal } from '../principal.ts';

export interface SendingApp {
  app: HostedApp;
  /** What the visitor runs: known from an app ticket, unknown for a key. */
  versionId: string | null;
  channel: Channel | null;
}

/**
 * The app an event is sent for: an app ticket's own app (the path's namespace must be its), or
 * with a key of the namespace's company (member or developer) the app named by `slug`.
 */
export async function appForSending(db: DbOrTrx, principal: Principal, namespace: string, slug: string | undefined): Promise<SendingApp> {
  if (principal.kind === 'ticket') {
    const t = principal.ticket;
    if (namespace !== t.namespace || (slug !== undefined && slug !== t.slug)) {
      throw new DomainError('forbidden', `This app ticket admits only ${t.namespace}/${t.slug}.`, {
        details: { namespace: t.namespace, slug: t.slug },
      });
    }
    const app = await findHostedApp(db, t.namespace, t.slug);
    if (!app || app.id !== t.appId) throw new DomainError('app_not_found');
    return { app, versionId: t.versionId, channel: t.channel };
  }
  assertCanRead(principal, namespace);
  return { app: await namedApp(db, namespace, slug), versionId: null, channel: null };
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

/**
 * Reading the log and handling feedback is for the namespace's developers: a developer key of its
 * company (the route checks the key's role), or a web session of a developer there (platform staff
 * for `public`).
 */
export async function assertLogReader(db: DbOrTrx, principal: Principal, namespace: string): Promise<void> {
  if (principal.kind === 'key') return assertCanRead(principal, namespace);
  const account = principal.account;
  let developer = false;
  if (namespace === PUBLIC_NAMESPACE) developer = account.platformStaff;
  else {
    const company = await db.selectFrom('companies').select('id').where('cell_id', '=', namespace).executeTakeFirst();
    const license = company ? await findLicense(db, account.id, company.id) : undefined;
    developer = license?.accountActive === true && license.role === 'developer';
  }
  if (!developer) {
    throw new DomainError('forbidden', `Only developers of ${namespace} may read its app log.`, {
      details: { namespace, required: 'developer' },
    });
  }
}

/** The app a developer reads the log of. */
export async function appForReading(db: DbOrTrx, principal: Principal, namespace: string, slug: string): Promise<HostedApp> {
  await assertLogReader(db, principal, namespace);
  return namedApp(db, namespace, slug);
}
