import type { DbOrTrx } from '../db/index.ts';
import { membershipsOf } from '../groups/index.ts';
import { liveGroupIds, type Visitor } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { licensesOf } from './repository.ts';

/**
 * A key acts for its one company at its (live) role; a session (licenses read at authentication)
 * or a ticket for every company of the account; an app token as member. Its groups are those
 * whose membership is live at `now` (the time of the check: an expired membership grants nothing).
 */
export async function visitorOf(db: DbOrTrx, principal: Principal, now: Date): Promise<Visitor> {
  const base = {
    accountId: principal.account.id,
    platformStaff: principal.account.platformStaff,
    groups: liveGroupIds(await membershipsOf(db, principal.account.id), now),
  };
  if (principal.kind === 'key') {
    return { ...base, licenses: [{ companyId: principal.company.id, cellId: principal.company.cellId, role: principal.role }] };
  }
  if (principal.kind === 'session') return { ...base, licenses: principal.licenses };
  const licenses = await licensesOf(db, principal.account.id);
  // An app token is the person's member-level credential: never developer, never staff.
  if (principal.kind === 'ticket' && principal.ticket.appToken) {
    return { ...base, platformStaff: false, licenses: licenses.map((l) => ({ companyId: l.companyId, cellId: l.cellId, role: 'member' })) };
  }
  return { ...base, licenses: licenses.map((l) => ({ companyId: l.companyId, cellId: l.cellId, role: l.role })) };
}
