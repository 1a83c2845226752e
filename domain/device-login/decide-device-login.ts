import { chooseCompany, licensesOf } from '../companies/index.ts';
import type { Db, DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { consume } from '../rate-limit/index.ts';
import { expired } from './poll-device-login.ts';
import { effectiveStatus, findPendingByUserCode, markExpired } from './repository.ts';
import { DEVICE_LOGIN } from './settings.ts';

export interface Decision {
  userCode: string;
  decision: 'approve' | 'deny';
  cellId?: string | undefined;
}

/** A2, first step, on the pool: the guess counts and an expiry sticks even when the decision fails. */
export async function checkDecision(pool: Db, clock: Clock, principal: Principal, userCode: string): Promise<void> {
  await consume(pool, DEVICE_LOGIN.codeEntryLimit, principal.account.id, clock);
  const login = await findPendingByUserCode(pool, userCode);
  if (login && effectiveStatus(login) === 'expired') {
    await markExpired(pool, login.id);
    throw expired('This code has expired: start the login again on your device.');
  }
}

/** A2: approving picks the company the key acts for; the account's role there becomes the key's role. */
export async function decideDeviceLogin(db: DbOrTrx, principal: Principal, input: Decision) {
  const login = await findPendingByUserCode(db, input.userCode, { unexpiredForUpdate: true });
  if (!login) throw expired('Unknown, expired or already decided code: start the login again on your device.');
  if (input.decision === 'deny') {
    await db
      .updateTable('device_logins')
      .set({ status: 'denied', account_id: principal.account.id, decided_at: new Date() })
      .where('id', '=', login.id)
      .execute();
    await enqueue(db, { topic: 'device-login.closed', key: login.id, payload: { reason: 'denied' } });
    return { decision: 'deny' as const, clientName: login.client_name, company: null };
  }
  const company = chooseCompany(await licensesOf(db, principal.account.id), input.cellId, 'invalid_payload');
  await db
    .updateTable('device_logins')
    .set({
      status: 'approved',
      account_id: principal.account.id,
      company_id: company.companyId,
      role: company.role,
      decided_at: new Date(),
    })
    .where('id', '=', login.id)
    .execute();
  return {
    decision: 'approve' as const,
    clientName: login.client_name,
    company: { cellId: company.cellId, name: company.name, role: company.role },
  };
}
