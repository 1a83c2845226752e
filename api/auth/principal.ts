import type { CompanyRole } from '../db/database.ts';

export type CredentialKind = 'key' | 'session';

/** Who may call a route: declared once per route and enforced before validation. */
export type AuthRequirement =
  | 'none'
  | {
      accepts: readonly CredentialKind[];
      /** `developer`: member keys get 403 with an explanation. */
      role?: CompanyRole;
      /** Platform staff only. */
      operator?: boolean;
    };

export interface AccountRef {
  id: string;
  username: string;
  email: string;
  platformStaff: boolean;
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
    }
  | { kind: 'session'; account: AccountRef; sessionHash: Buffer };

/** A developer of a company: developer license, company admin, or platform staff. */
export function roleFromLicense(license: { role: CompanyRole; admin: boolean }, platformStaff: boolean): CompanyRole {
  return license.role === 'developer' || license.admin || platformStaff ? 'developer' : 'member';
}
