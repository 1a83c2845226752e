import type { MediaTransactionView } from '../../schemas/media.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { transactionToClose, transactionView } from './transactions.ts';

/** Aborts a transaction: its staged items are deleted (their bytes, shared by hash, go with the blob sweep once no row names them). */
export async function abortMediaTransaction(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  rid: string,
  transactionId: string,
): Promise<MediaTransactionView> {
  const { set, tx } = await transactionToClose(deps, principal, rid, transactionId);
  await deps.db.deleteFrom('media_items').where('transaction_id', '=', tx.id).execute();
  await deps.db
    .updateTable('media_set_transactions')
    .set({ state: 'ABORTED', closed_at: deps.clock.now() })
    .where('id', '=', tx.id)
    .execute();
  return transactionView(set, tx, 'ABORTED', 0);
}
