import { problem } from '../../schemas/problems.ts';
import { assertCanWrite } from '../apps/namespace-access.ts';
import type { DbOrTrx } from '../db/database.ts';
import { DomainError } from '../errors.ts';
import { findHostedApp, type HostedApp } from '../hosting/repository.ts';
import { visitorOf } from '../hosting/visitor.ts';
import type { Principal } from '../principal.ts';

export interface AppRef {
  namespace?: string | undefined;
  slug?: string | undefined;
}

/**
 * "The current app" of a sharing call: the app of the caller's app ticket, or with a developer key
 * the app named by namespace and slug. Sharing is for the app's developers only.
 */
export async function currentApp(db: DbOrTrx, principal: Principal, ref: AppRef): Promise<HostedApp> {
  if (principal.kind === 'ticket') {
    const { namespace, slug, appId } = principal.ticket;
    if ((ref.namespace !== undefined && ref.namespace !== namespace) || (ref.slug !== undefined && ref.slug !== slug)) {
      throw new DomainError('forbidden', `This app ticket admits only ${namespace}/${slug}.`, { details: { namespace, slug } });
    }
    const app = await findHostedApp(db, namespace, slug);
    if (!app || app.id !== appId) throw new DomainError('app_not_found');
    // Through visitorOf, which holds an app token (an MCP host) to member level.
    const visitor = await visitorOf(db, principal);
    const developer = app.companyId
      ? visitor.licenses.some((l) => l.companyId === app.companyId && l.role === 'developer')
      : visitor.platformStaff;
    if (!developer)
      throw new DomainError('forbidden', 'Only the app’s developers may manage its shares.', { details: { required: 'developer' } });
    return app;
  }
  if (ref.namespace === undefined || ref.slug === undefined) {
    throw new DomainError('invalid_payload', 'Name the app with namespace and slug (or call with the app’s ticket).', {
      details: { problems: [problem(ref.namespace === undefined ? 'namespace' : 'slug', 'required', 'required with a developer key')] },
    });
  }
  assertCanWrite(principal, ref.namespace);
  const app = await findHostedApp(db, ref.namespace, ref.slug);
  if (!app) throw new DomainError('app_not_found', `No app ${ref.namespace}/${ref.slug}.`);
  return app;
}
