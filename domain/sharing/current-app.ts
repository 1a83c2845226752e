import { problem } from '../../schemas/problems.ts';
import { findHostedApp, type HostedApp } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

export interface AppRef {
  namespace?: string | undefined;
  slug?: string | undefined;
}

/**
 * The app whose shares the caller manages, named by namespace and slug, once the policy lets the
 * caller share there (app.share: the company's developers by key or web session; never a ticket).
 */
export async function currentApp(db: DbOrTrx, principal: Principal, ref: AppRef): Promise<HostedApp> {
  if (ref.namespace === undefined || ref.slug === undefined) {
    throw new DomainError('invalid_payload', 'Name the app with namespace and slug.', {
      details: { problems: [problem(ref.namespace === undefined ? 'namespace' : 'slug', 'required', 'required')] },
    });
  }
  authorize(principal, 'app.share', { namespace: ref.namespace });
  const app = await findHostedApp(db, ref.namespace, ref.slug);
  if (!app) throw new DomainError('app_not_found', `No app ${ref.namespace}/${ref.slug}.`);
  return app;
}
