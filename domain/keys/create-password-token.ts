import type { IssuedKey } from '../../schemas/identity.ts';
import { chooseCompany, licensesOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DEFAULT_CLIENT_NAME, issueKey } from './issue-key.ts';

export interface PasswordTokenInput {
  cellId?: string | undefined;
  clientName?: string | undefined;
}

/** A4, once the password is checked: a key for one company, with the account's role there. */
export async function createPasswordToken(db: DbOrTrx, account: { id: string; username: string }, input: PasswordTokenInput, ip: string) {
  const company = chooseCompany(await licensesOf(db, account.id), input.cellId);
  const clientName = input.clientName ?? DEFAULT_CLIENT_NAME;
  const key = await issueKey(db, {
    accountId: account.id,
    companyId: company.companyId,
    role: company.role,
    clientName,
    issuedBy: 'password',
    ip,
  });
  const summary = {
    account: { id: account.id, username: account.username },
    company: { cellId: company.cellId, name: company.name },
    role: company.role,
  };
  const issued: IssuedKey = { key: key.plaintext, keyId: key.id, prefix: key.displayPrefix, clientName, ...summary };
  /** What a dry run answers: who the key would act as, and no key. */
  return { issued, plan: { wouldIssue: { ...summary, clientName } } };
}
