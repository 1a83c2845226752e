import type { CompanyRole } from './db/database.ts';

// The caller of a use case, as authentication found it.

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
