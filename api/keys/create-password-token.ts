import { chooseCompany } from '../accounts/choose-company.ts';
import { checkPassword } from '../accounts/password-check.ts';
import { membershipsOf } from '../accounts/repository.ts';
import type { DbOrTrx } from '../db/database.ts';
import type { AppDeps } from '../deps.ts';
import { DEFAULT_CLIENT_NAME, issueKey } from './issue-key.ts';

export interface PasswordTokenInput {
  login: string;
  password: string;
  cellId?: string | undefined;
  clientName?: string | undefined;
  ip: string;
}

/** A4: a key for one company, with the account's role there. */
export async function createPasswordToken(deps: AppDeps, db: DbOrTrx, input: PasswordTokenInput) {
  const account = await checkPassword(deps, input);
  const company = chooseCompany(await membershipsOf(db, account.id), input.cellId);
  const key = await issueKey(db, {
    accountId: account.id,
    companyId: company.companyId,
    role: company.role,
    clientName: input.clientName,
    issuedBy: 'password',
  });
  const summary = {
    account: { id: account.id, username: account.username },
    company: { cellId: company.cellId, name: company.name },
    role: company.role,
  };
  const clientName = input.clientName ?? DEFAULT_CLIENT_NAME;
  return {
    issued: { key: key.plaintext, keyId: key.id, prefix: key.displayPrefix, clientName, ...summary },
    /** What a dry run answers: who the key would act as, and no key. */
    plan: { wouldIssue: { ...summary, clientName } },
  };
}
