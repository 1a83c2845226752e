import { licensesOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';

/** The signed-in account and the companies it can act for. */
export async function describeSession(db: DbOrTrx, principal: Principal) {
  const licenses = await licensesOf(db, principal.account.id);
  return { account: principal.account, companies: licenses.map((l) => ({ cellId: l.cellId, name: l.name, role: l.role })) };
}
