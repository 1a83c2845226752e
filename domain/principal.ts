import type { AgentRestrictions } from '../schemas/ontology-actions.ts';
import type { AppRole } from '../schemas/sharing.ts';
import type { Channel, CompanyRole } from './db/index.ts';

// The caller of a use case, as authentication found it.

export interface AccountRef {
  id: string;
  username: string;
  email: string;
  platformStaff: boolean;
}

/** One company an account acts for, at its role there (developer: license, company admin or platform staff). */
export interface LicenseRef {
  companyId: string;
  cellId: string;
  role: CompanyRole;
}

export interface CompanyRef {
  id: string;
  cellId: string;
  name: string;
}

export type Principal =
  | {
      kind: 'key';
      account: AccountRef;
      company: CompanyRef;
      /** The key's role, lowered to member if the account is no longer a developer there. */
      role: CompanyRole;
      key: { id: string; displayPrefix: string };
      /**
       * An agent acting through the key: a restricted agent key (with its restrictions, spec
       * Authentication 7) or a developer key sent with `x-author: agent:<id>` (restrictions null).
       * Agent authors cannot write the main definition (branch_required).
       */
      agent?: { id: string; restrictions: AgentRestrictions | null };
    }
  | {
      kind: 'session';
      account: AccountRef;
      sessionHash: Buffer;
      /** The companies the account acts for and its role in each, as of this request. */
      licenses: readonly LicenseRef[];
    }
  | {
      kind: 'ticket';
      account: AccountRef;
      /** The one app, channel and version the ticket was issued for. */
      ticket: {
        id: string;
        appId: string;
        namespace: string;
        slug: string;
        channel: Channel;
        versionId: string;
        expiresAt: Date;
        /** The app's company (null: an official public app). */
        companyId: string | null;
        /** The share the app was opened through; null for company access. */
        shareId: string | null;
        /**
         * The visitor's role in this app: given by the app-open rule when the ticket was issued
         * (a ticket) or at each request (an app token, never above member). Everything the
         * credential may do in the app follows from it (domain/policy).
         */
        role: AppRole;
        /**
         * Set when the credential is an app token (OAuth, an MCP host) rather than a page's
         * ticket: it acts at member level at most, and is renewed at the token endpoint.
         */
        appToken?: { clientId: string };
      };
    };
