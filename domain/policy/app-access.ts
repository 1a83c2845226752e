import type { Manifest } from '../../schemas/manifest/index.ts';
import type { AppRole } from '../../schemas/sharing.ts';
import type { Channel, CompanyRole, ResourceRole } from '../db/index.ts';
import { PUBLIC_NAMESPACE } from './rules.ts';

export type { AppRole };

/** Who is opening an app: an account and the companies it acts for (a key: only its own, at its role). */
export interface Visitor {
  accountId: string;
  platformStaff: boolean;
  licenses: readonly { companyId: string; cellId: string; role: CompanyRole }[];
  /** The groups the account is a live member of at the visit (domain/policy liveGroupIds). */
  groups: readonly string[];
}

export interface AccessTarget {
  namespace: string;
  /** Null for official public apps. */
  companyId: string | null;
  channel: Channel;
  /** The manifest's `auth.access` of the version being opened. */
  access: 'company' | 'restricted';
  /** The manifest's `auth.publicLink` (legacy `open` already reads as `signin`). */
  publicLink: 'signin' | 'members';
}

/** The live shares of the app that concern this visitor (found by `findShareGrants`). */
export interface ShareGrants {
  /**
   * A share with a company the visitor holds a license in: the app's own opens a restricted app to
   * its members; another company's admits its people to production as editors.
   */
  company: { id: string } | null;
  /** A share with the visitor's account (any company), role editor. */
  account: { id: string } | null;
  /** The public link the visitor came through (only on that visit). */
  link: { id: string } | null;
  /** The highest generic-resource grant on the app or its company's applications resource. */
  resource: ResourceGrant | null;
}

/** A generic-resource grant, by its key (rid, principal): a ticket opened through it ends with it. */
export interface ResourceGrant {
  rid: string;
  principal: string;
  role: ResourceRole;
}

export const NO_SHARES: ShareGrants = { company: null, account: null, link: null, resource: null };

export type AccessRefusal = 'no_company' | 'not_member' | 'developers_only' | 'restricted' | 'members_only' | 'marked';

export type AppAccess =
  | {
      allowed: true;
      role: AppRole;
      /** The visitor is a company person (a license in the app's company; any company for official apps). */
      member: boolean;
      /** The share that admitted the visitor; null for company access. */
      viaShare: string | null;
      /** The resource grant that admitted the visitor when no license or share did. */
      viaGrant: { rid: string; principal: string } | null;
    }
  | {
      allowed: false;
      reason: AccessRefusal;
      /** Why, for the 403 page. */
      message: string;
      /** What the visitor can do about it. */
      remedy: string;
      /** A member on a test address: the production address is theirs to open, and they are sent there. */
      productionInstead: boolean;
      /**
       * The visitor may open the production version (a member, or a share holder on the test
       * address): the 403 says what they already have instead of sending them to ask for it.
       */
      productionOpen: boolean;
    };

const refuse = (
  reason: AccessRefusal,
  message: string,
  remedy: string,
  production: { instead: boolean; open: boolean } = { instead: false, open: false },
): AppAccess => ({
  allowed: false,
  reason,
  message,
  remedy,
  productionInstead: production.instead,
  productionOpen: production.open,
});

/**
 * Markings on top of the app-open rule: an app whose resource (or, inherited, its company's
 * applications resource) carries markings the visitor does not satisfy does not open for it,
 * whatever its role (developers included).
 */
export const withinAppMarkings = (access: AppAccess, cleared: boolean): AppAccess =>
  !access.allowed || cleared
    ? access
    : refuse(
        'marked',
        'This app is marked: it opens only for people cleared for its markings.',
        'Ask an administrator of its markings for a role on them.',
      );

/** Whether the app-open rule admits the visitor to the production version of the same app. */
const opensProduction = (visitor: Visitor, target: AccessTarget, shares: ShareGrants) =>
  appRoleOf(visitor, { ...target, channel: 'production' }, shares).allowed;

/**
 * The one rule of who may open an app and with which role (spec Authentication 9-11, Rules for
 * B3, C): official public apps need membership of at least one company; the test channel only
 * developers (of an official app's test channel: a developer of any company, or platform staff).
 * Company apps: developers as developer; members as member, on a restricted app only when it is
 * shared with them (company, account or link share, or a grant on the app's resource); other people
 * only through a share: a named account share, a share with their company (or an Editor/Owner
 * resource grant) as editor, a public link (or a Viewer resource grant) read-only as viewer, a
 * link refused when `auth.publicLink` is `members`.
 */
export function appRoleOf(visitor: Visitor, target: AccessTarget, shares: ShareGrants = NO_SHARES): AppAccess {
  if (target.namespace === PUBLIC_NAMESPACE) {
    if (visitor.licenses.length === 0 && !visitor.platformStaff) {
      return refuse(
        'no_company',
        'Official apps are open to members of a company on this service.',
        'Ask your company admin for a license.',
      );
    }
    const developer = visitor.platformStaff || visitor.licenses.some((l) => l.role === 'developer');
    if (target.channel === 'test' && !developer) {
      return refuse('developers_only', 'The test version is for developers.', 'Open the production address instead.', {
        instead: true,
        open: true,
      });
    }
    return { allowed: true, role: developer ? 'developer' : 'member', member: true, viaShare: null, viaGrant: null };
  }
  const license = visitor.licenses.find((l) => l.companyId === target.companyId);
  if (!license) return outsiderAccess(visitor, target, shares);
  if (target.channel === 'test' && license.role !== 'developer') {
    return refuse(
      'developers_only',
      'The test version is for the company’s developers.',
      'Open the production address instead.',
      // Members are sent to production, which may still refuse them (a restricted app not shared with them).
      { instead: true, open: opensProduction(visitor, target, shares) },
    );
  }
  if (license.role === 'developer') return { allowed: true, role: 'developer', member: true, viaShare: null, viaGrant: null };
  if (target.access === 'company') return { allowed: true, role: 'member', member: true, viaShare: null, viaGrant: null };
  // Restricted: company people keep their company role when any share or resource grant admits them.
  const share = shares.account ?? shares.company ?? shares.link;
  if (share) return { allowed: true, role: 'member', member: true, viaShare: share.id, viaGrant: null };
  if (shares.resource) return { allowed: true, role: 'member', member: true, viaShare: null, viaGrant: grantKey(shares.resource) };
  return refuse(
    'restricted',
    'This app is restricted to the company’s developers and the people it is shared with.',
    'Ask a developer of the app to share it with you.',
  );
}

/** People without a license in the app's company: production only, and only through a share. */
function outsiderAccess(visitor: Visitor, target: AccessTarget, shares: ShareGrants): AppAccess {
  const notMember = () =>
    refuse(
      'not_member',
      `This app belongs to ${target.namespace} and you are not a member of that company.`,
      'Ask an admin of that company for a license, or a developer of the app to share it with you.',
    );
  if (target.channel === 'test') {
    // A share admits to production only: say so, rather than asking for the share they hold.
    if (!opensProduction(visitor, target, shares)) return notMember();
    return refuse('developers_only', 'The test version is for the company’s developers.', 'You have access to the production version.', {
      instead: false,
      open: true,
    });
  }
  const share = shares.account ?? shares.company;
  if (share) return { allowed: true, role: 'editor', member: false, viaShare: share.id, viaGrant: null };
  // An Editor or Owner grant on the app's resource reads as a named share; a Viewer grant as a link.
  const grant = shares.resource;
  if (grant && grant.role !== 'viewer') return { allowed: true, role: 'editor', member: false, viaShare: null, viaGrant: grantKey(grant) };
  if (shares.link && target.publicLink !== 'members') {
    return { allowed: true, role: 'viewer', member: false, viaShare: shares.link.id, viaGrant: null };
  }
  if (grant) return { allowed: true, role: 'viewer', member: false, viaShare: null, viaGrant: grantKey(grant) };
  if (shares.link) {
    return refuse(
      'members_only',
      `This app opens its links only to members of ${target.namespace} and the people it is shared with by name.`,
      'Ask a developer of the app to share it with your account.',
    );
  }
  return notMember();
}

/** What an anonymous visitor may do with an app: read it (and which object types), or nothing. */
export type AnonymousAccess = { allowed: true; readTypes: readonly string[] } | { allowed: false };

/**
 * The anonymous visitor of an internet-tier app (spec D rules 3 and 7): a request with no
 * credential at all. Admitted only to the production channel of an app at the internet tier (an
 * `internet` grant on the app or, inherited, on its company's applications resource), read only:
 * its entry page without a ticket (so no SDK calls, actions or SQL), its version files and
 * generated pages, and through the public app link the object types its manifest reads, each by
 * name (a `*` is not widened to the internet). Lowering the tier ends this at the next request.
 */
export function anonymousAppAccess(target: { channel: Channel; semantic: Manifest['semantic'] }, internetTier: boolean): AnonymousAccess {
  if (!internetTier || target.channel !== 'production') return { allowed: false };
  return { allowed: true, readTypes: permissionsOf('viewer', target.semantic).read.filter((t) => t !== '*') };
}

const grantKey = ({ rid, principal }: ResourceGrant) => ({ rid, principal });

/** Strength of the app roles: editors may do what members may (spec Authentication 9). */
const RANK: Record<AppRole, number> = { viewer: 0, editor: 1, member: 1, developer: 2 };

/** The lower of two roles: a ticket acts with at most the role it was issued with, whatever the app-open rule says today. */
export const lowerRole = (a: AppRole, b: AppRole): AppRole => (RANK[b] < RANK[a] ? b : a);

/**
 * What a role may do with the app's semantic types (spec Authentication 9): developers read and
 * write every type the app lists and share; members and editors read its types, run its actions and
 * write the types it lists for writing; viewers only read.
 */
export function permissionsOf(role: AppRole | null, semantic: Manifest['semantic'] | null) {
  const s = semantic ?? { types: [], actions: [], write: [] };
  switch (role) {
    case 'developer':
      return { read: s.types, actions: s.actions, write: [...new Set([...s.types, ...s.write])], share: true };
    case 'member':
    case 'editor':
      return { read: s.types, actions: s.actions, write: s.write, share: false };
    default:
      return { read: role === 'viewer' ? s.types : [], actions: [], write: [], share: false };
  }
}
