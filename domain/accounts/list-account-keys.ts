import type { DbOrTrx } from '../db/index.ts';
import { keysOf } from '../keys/index.ts';
import { getAccount } from './get-account.ts';

/** For operators: every key of an account, revoked ones with when and why (prefix only). */
export async function listAccountKeys(db: DbOrTrx, accountId: string) {
  await getAccount(db, accountId);
  return keysOf(db, accountId, { liveOnly: false });
}
