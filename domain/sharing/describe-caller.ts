import type { z } from 'zod';
import type { AuthMe } from '../../schemas/sharing.ts';
import { loadVersion, reachApp } from '../apps/index.ts';
import { visitorOf } from '../companies/index.ts';
import type { Channel } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { permissionsOf } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

/**
 * GET auth/me: the caller, and with an app (the ticket's, or one named by a key or session) the
 * role the one access check gives, its permissions, channel and version.
 */
export async function describeCaller(
  deps: DomainDeps,
  principal: Principal,
  named: { namespace?: string | undefined; slug?: string | undefined; channel: Channel },
): Promise<z.input<typeof AuthMe>> {
  const identity = { accountId: principal.account.id, username: principal.account.username, email: principal.account.email };
  const target =
    principal.kind === 'ticket'
      ? { namespace: principal.ticket.namespace, slug: principal.ticket.slug, channel: principal.ticket.channel }
      : named.namespace && named.slug
        ? { namespace: named.namespace, slug: named.slug, channel: named.channel }
        : undefined;
  if (!target) {
    const { licenses } = await visitorOf(deps.db, principal, deps.clock.now());
    const role = licenses.some((l) => l.role === 'developer') ? 'developer' : licenses.length > 0 ? 'member' : null;
    return {
      identity,
      role,
      permissions: permissionsOf(null, null),
      signedIn: true,
      member: licenses.length > 0,
      app: null,
      channel: null,
      version: null,
      viaShare: false,
    };
  }
  const { app, version, access } = await reachApp(deps, principal, target);
  // A ticket belongs to the page that runs its version, even after the channel moved on.
  const shown = principal.kind === 'ticket' ? (await loadVersion(deps.db, principal.ticket.versionId)).version : version.version;
  return {
    identity,
    role: access.role,
    permissions: permissionsOf(access.role, version.manifest.semantic),
    signedIn: true,
    member: access.member,
    app: { namespace: app.namespace, slug: app.slug },
    channel: target.channel,
    version: shown,
    viaShare: access.viaShare !== null,
  };
}
