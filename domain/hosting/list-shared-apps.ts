import { accessToApp } from '../apps/index.ts';
import { visitorOf } from '../companies/index.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { appsSharedWith } from '../resources/index.ts';
import { type CatalogEntry, catalogEntry } from './list-catalog.ts';

export interface SharedEntry extends CatalogEntry {
  /** The name of the app's company. */
  company: string;
}

/**
 * A visitor's "Shared with you": the apps of companies they are not in, shared with their account
 * by name, with one of their groups or with a company of theirs, that the app-open rule admits them to in production today (an app with no production
 * version, or whose manifest now refuses them, is left out).
 */
export async function listSharedApps(deps: Pick<DomainDeps, 'db' | 'clock' | 'addresses'>, principal: Principal): Promise<SharedEntry[]> {
  const shared: SharedEntry[] = [];
  const now = deps.clock.now();
  for (const candidate of await appsSharedWith(deps.db, await visitorOf(deps.db, principal, now), now)) {
    const target = { namespace: candidate.namespace, slug: candidate.slug, channel: 'production' as const };
    const opened = await accessToApp(deps, principal, target).catch((err: unknown) => {
      if (err instanceof DomainError && err.code === 'app_not_found') return null;
      throw err;
    });
    // Members find their company's apps in its own catalog.
    if (!opened?.access.allowed || opened.access.member) continue;
    shared.push({ ...catalogEntry(deps.addresses(), candidate, 'production', opened.version), company: candidate.company });
  }
  return shared;
}
