import { PUBLIC_NAMESPACE } from '../apps/namespace-access.ts';
import type { Channel, CompanyRole } from '../db/database.ts';

/** Who is opening an app: an account and the companies it acts for (a key: only its own, at its role). */
export interface Visitor {
  accountId: string;
  platformStaff: boolean;
  licenses: readonly { companyId: string; cellId: string; role: CompanyRole }[];
}

export interface AccessTarget {
  namespace: string;
  /** Null for official public apps. */
  companyId: string | null;
  channel: Channel;
  /** The manifest's `auth.access` of the version being opened. */
  access: 'company' | 'restricted';
}

export type AccessRefusal = 'no_company' | 'not_member' | 'developers_only' | 'restricted';

export type AppAccess =
  | { allowed: true; role: CompanyRole /** The share that admitted the visitor; null until shares exist. */; viaShare: null }
  | {
      allowed: false;
      reason: AccessRefusal;
      /** Why, for the 403 page. */
      message: string;
      /** What the visitor can do about it. */
      remedy: string;
      /** A member on a test address: the production address is theirs to open. */
      productionInstead: boolean;
    };

const refuse = (reason: AccessRefusal, message: string, remedy: string, productionInstead = false): AppAccess => ({
  allowed: false,
  reason,
  message,
  remedy,
  productionInstead,
});

/**
 * The one rule of who may open an app (spec Authentication 9-11, Rules for B3): official public
 * apps need membership of at least one company, company apps a license in that company; the test
 * channel and `auth.access: restricted` only developers (of an official app's test channel: a
 * developer of any company, or platform staff). Shares (the sharing issue) extend this.
 */
export function checkAppAccess(visitor: Visitor, target: AccessTarget): AppAccess {
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
      return refuse('developers_only', 'The test version is for developers.', 'Open the production address instead.', true);
    }
    return { allowed: true, role: developer ? 'developer' : 'member', viaShare: null };
  }
  const license = visitor.licenses.find((l) => l.companyId === target.companyId);
  if (!license) {
    return refuse(
      'not_member',
      `This app belongs to ${target.namespace} and you are not a member of that company.`,
      'Ask an admin of that company for a license, or a developer of the app to share it with you.',
    );
  }
  if (target.channel === 'test' && license.role !== 'developer') {
    return refuse('developers_only', 'The test version is for the company’s developers.', 'Open the production address instead.', true);
  }
  if (target.access === 'restricted' && license.role !== 'developer') {
    return refuse(
      'restricted',
      'This app is restricted to the company’s developers and the people it is shared with.',
      'Ask a developer of the app to share it with you.',
    );
  }
  return { allowed: true, role: license.role, viaShare: null };
}
