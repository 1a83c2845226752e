import type { Db, DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { consume } from '../rate-limit/index.ts';
import { effectiveStatus, findByUserCode } from './repository.ts';
import { DEVICE_LOGIN } from './settings.ts';
import { formatUserCode } from './user-code.ts';

export type UserCodeState = 'pending' | 'approved' | 'denied' | 'expired' | 'used' | 'unknown';

/** What a user code stands for, for the approval page; each look-up counts as a guess. */
export async function lookUpUserCode(pool: Db, clock: Clock, db: DbOrTrx, principal: Principal, userCode: string) {
  await consume(pool, DEVICE_LOGIN.codeEntryLimit, principal.account.id, clock);
  const login = await findByUserCode(db, userCode);
  const status = login ? effectiveStatus(login) : undefined;
  const state: UserCodeState = status === undefined ? 'unknown' : status === 'consumed' ? 'used' : status;
  return {
    userCode: formatUserCode(userCode),
    state,
    clientName: login?.client_name ?? null,
    expiresAt: login?.expires_at.toISOString() ?? null,
  };
}
