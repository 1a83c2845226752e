import { MEDIA_LIMITS } from '../../schemas/media.ts';
import type { AgentRestrictions } from '../../schemas/ontology-actions.ts';
import type { AppRole } from '../../schemas/sharing.ts';
import type { ResourceRole } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { type MarkingClearance, NO_CLEARANCE, type RequiredMarking, satisfiesMarkings } from './markings.ts';

// The shared rules every access decision is built from (authorize.ts is their one caller
// outside this folder, with the app-open rule in app-access.ts and the route table in
// route-access.ts). Each rule reads the principal only: authentication put on it what
// decides access (a key's live role, a session's licenses, a ticket's app role).

/** The platform's own namespace: official apps, open to every company. */
export const PUBLIC_NAMESPACE = 'public';

/** A company named by its id (`org_…`) or its cell id (`cell-…`, the namespace); null or `public`: the platform's official apps. */
export type CompanyName = string | null;

const isPlatform = (company: CompanyName) => company === null || company === PUBLIC_NAMESPACE;
const names = (company: CompanyName, ref: { companyId: string | null; cellId: string | null }) =>
  company !== null && (ref.companyId === company || ref.cellId === company);

/** One group membership of an account: the group, its company, and when the membership ends (null: never). */
export interface GroupMembership {
  groupId: string;
  companyId: string;
  expiresAt: Date | null;
}

/**
 * The groups an account answers to at `now` (the one membership rule): a membership counts until
 * its expiration, judged at each check, so an expired one stops granting at once, with no sweeper.
 * Groups are flat (no group is a member of another), so this is linear in the account's memberships.
 */
export const liveGroupIds = (memberships: readonly GroupMembership[], now: Date): string[] =>
  memberships.filter((m) => m.expiresAt === null || m.expiresAt.getTime() > now.getTime()).map((m) => m.groupId);

/** An agent key's restrictions (spec Authentication 7); null for any other credential, a developer key sent with x-author included. */
export function agentRestrictionsOf(principal: Principal): AgentRestrictions | null {
  return principal.kind === 'key' ? (principal.agent?.restrictions ?? null) : null;
}

/** An agent key: read-only unless issued with api:use-ontologies-write; never an Owner, never a sharer, never a developer. */
export const isAgentKey = (principal: Principal) => agentRestrictionsOf(principal) !== null;

/** An agent key reads (its listed object types only) when issued with the read operation, as every key issued today is. */
export function agentMayRead(principal: Principal): boolean {
  const r = agentRestrictionsOf(principal);
  return r === null || r.operations.includes('api:use-ontologies-read');
}

/** An agent key may run actions only when issued with the write operation (and then only its listed action types). */
export function agentMayWrite(principal: Principal): boolean {
  const r = agentRestrictionsOf(principal);
  return r === null || r.operations.includes('api:use-ontologies-write');
}

/** The largest media item this credential may upload (spec Limits: media): a restricted agent key's cap, anyone else's item limit. */
export function mediaUploadItemLimit(principal: Principal): number {
  return isAgentKey(principal) ? MEDIA_LIMITS.agentUploadItemBytes : MEDIA_LIMITS.uploadItemBytes;
}

/** An app token (OAuth, an MCP host): the person's credential for one app, at member level at most. */
export const isAppToken = (principal: Principal) => principal.kind === 'ticket' && principal.ticket.appToken !== undefined;

/**
 * A developer of the company, today: a key issued as developer whose account still holds the
 * developer license there (the key's live role), a session of an account with a developer license
 * there, or the app ticket of a developer of the app's company. Platform staff count only for the
 * platform's official apps. Never an agent key, never an app token.
 */
export function isDeveloperOf(principal: Principal, company: CompanyName): boolean {
  switch (principal.kind) {
    case 'key':
      if (isAgentKey(principal) || principal.role !== 'developer') return false;
      return isPlatform(company)
        ? principal.account.platformStaff
        : names(company, { companyId: principal.company.id, cellId: principal.company.cellId });
    case 'session':
      return isPlatform(company)
        ? principal.account.platformStaff
        : principal.licenses.some((l) => l.role === 'developer' && names(company, l));
    case 'ticket':
      return principal.ticket.role === 'developer' && !isAppToken(principal) && sameCompany(principal, company);
  }
}

/**
 * A developer in the company's data layer (define types, edit objects, read everything): its
 * developers (a developer's app ticket included, as in isDeveloperOf; the route table keeps tickets
 * away from edits and definitions), and platform staff signed in or by key (the spec's developer
 * role includes platform staff; a key still acts for its own company only), never staff through a
 * ticket. Never an agent key.
 */
export function isDataDeveloperOf(principal: Principal, company: CompanyName): boolean {
  if (isDeveloperOf(principal, company)) return true;
  if (principal.kind === 'ticket' || isAgentKey(principal) || !principal.account.platformStaff) return false;
  return principal.kind === 'session' || names(company, { companyId: principal.company.id, cellId: principal.company.cellId });
}

/** A person of the company (any license there), or for tickets a company role in the app (developer or member). */
export function isMemberOf(principal: Principal, company: CompanyName): boolean {
  switch (principal.kind) {
    case 'key':
      return isPlatform(company)
        ? principal.account.platformStaff
        : names(company, { companyId: principal.company.id, cellId: principal.company.cellId });
    case 'session':
      return isPlatform(company) ? principal.licenses.length > 0 : principal.licenses.some((l) => names(company, l));
    case 'ticket':
      return (principal.ticket.role === 'developer' || principal.ticket.role === 'member') && sameCompany(principal, company);
  }
}

const sameCompany = (principal: Extract<Principal, { kind: 'ticket' }>, company: CompanyName) =>
  isPlatform(company)
    ? principal.ticket.companyId === null
    : names(company, { companyId: principal.ticket.companyId, cellId: principal.ticket.namespace });

/**
 * A ticket (or an app token) admits only its own app: the app named by namespace and slug (a
 * namespace alone: the ticket's company). Other credentials are not tickets: true.
 */
export function ticketAdmits(
  principal: Principal,
  app: { namespace: string; slug?: string | undefined; id?: string | undefined },
): boolean {
  if (principal.kind !== 'ticket') return true;
  const t = principal.ticket;
  return app.namespace === t.namespace && (app.slug === undefined || app.slug === t.slug) && (app.id === undefined || app.id === t.appId);
}

/**
 * Shares with named people of any company (spec D: accounts found by exact username or email): a
 * developer of any company by key or web session, or platform staff. Never a ticket (tickets never
 * share), never an agent key.
 */
export function sharesAcrossCompanies(principal: Principal): boolean {
  switch (principal.kind) {
    case 'key':
      return !isAgentKey(principal) && (principal.role === 'developer' || principal.account.platformStaff);
    case 'session':
      return principal.account.platformStaff || principal.licenses.some((l) => l.role === 'developer');
    case 'ticket':
      return false;
  }
}

/**
 * Manages a company's groups and reads its people (spec G, Admin): its company admins and
 * developers (as they manage its members today: a developer key there), and platform staff for
 * every company. Never an agent key, never a ticket.
 */
export function managesPeopleOf(principal: Principal, company: CompanyName): boolean {
  if (principal.kind === 'ticket' || isAgentKey(principal)) return false;
  if (principal.account.platformStaff) return true;
  return !isPlatform(company) && isDeveloperOf(principal, company);
}

/** The namespaces a key acts in: its company's, plus `public` for platform staff. Other credentials: none (they act through apps). */
export function keyNamespaces(principal: Principal): string[] {
  if (principal.kind !== 'key') return [];
  return [principal.company.cellId, ...(principal.account.platformStaff ? [PUBLIC_NAMESPACE] : [])];
}

/** The app role a credential acts with: an app token never above member (spec: the platform stays the source of permission). */
export const tokenRole = (role: AppRole): AppRole => (role === 'developer' ? 'member' : role);

/** Roles that change data: everyone but viewers (public links and Viewer grants read only). */
export const mayWriteAs = (role: AppRole | null) => role === 'developer' || role === 'member' || role === 'editor';

/**
 * The caller's role on a resource of the generic access model (spec D, rule 1): "a company
 * developer is always Owner" and "the creator is one" hold only while the person holds a developer
 * license in the resource's company (so the creator rule adds nothing beyond it); otherwise the
 * highest role the caller's grants give (`granted`). An agent key is never an Owner: its grants
 * read at most as Viewer. `markings`: the resource's own and inherited markings and the caller's clearance.
 */
export function resourceRoleOf(
  principal: Principal,
  resource: { companyId: string | null },
  granted: ResourceRole | null,
  markings: { required: readonly RequiredMarking[]; clearance: MarkingClearance } = { required: [], clearance: NO_CLEARANCE },
): ResourceRole | null {
  // Markings come on top of roles: a resource whose markings the caller does not satisfy has no role for them, Owners included.
  if (!satisfiesMarkings(markings.clearance, markings.required)) return null;
  if (isAgentKey(principal)) return granted === null ? null : 'viewer';
  if (resource.companyId !== null && isDeveloperOf(principal, resource.companyId)) return 'owner';
  return granted;
}
