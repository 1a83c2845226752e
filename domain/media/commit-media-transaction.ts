import type { MediaTransactionView } from '../../schemas/media.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { stagedCount, transactionToClose, transactionView } from './transactions.ts';

/**
 * Commits a transaction: its items become visible at once (one database transaction), each
 * replacing the visible item at its path on the branch.
 */
export async function commitMediaTransaction(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  rid: string,
  transactionId: string,
): Promise<MediaTransactionView> {
  const { set, tx } = await transactionToClose(deps, principal, rid, transactionId);
  const staged = deps.db.selectFrom('media_items').select('path').where('transaction_id', '=', tx.id).where('visible', '=', false);
  await deps.db
    .deleteFrom('media_items')
    .where('branch_id', '=', tx.branch_id)
    .where('visible', '=', true)
    .where('path', 'in', staged)
    .execute();
  await deps.db.updateTable('media_items').set({ visible: true }).where('transaction_id', '=', tx.id).execute();
  await deps.db
    .updateTable('media_set_transactions')
    .set({ state: 'COMMITTED', closed_at: deps.clock.now() })
    .where('id', '=', tx.id)
    .execute();
  return transactionView(set, tx, 'COMMITTED', await stagedCount(deps.db, tx.id));
}
