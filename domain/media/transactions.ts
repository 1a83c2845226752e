import type { MediaTransactionView } from '../../schemas/media.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { mediaSetFor, type SetRow, setRid } from './repository.ts';

/** A transaction of the set, locked for its change (media_set_transaction_not_found otherwise). */
export async function transactionOf(db: DbOrTrx, set: SetRow, id: string) {
  const tx = await db
    .selectFrom('media_set_transactions as t')
    .innerJoin('media_set_branches as b', 'b.id', 't.branch_id')
    .select(['t.id', 't.state', 't.branch_id', 'b.name as branch_name'])
    .where('t.id', '=', id)
    .where('b.media_set_id', '=', set.id)
    .forUpdate('t')
    .executeTakeFirst();
  if (!tx)
    throw new DomainError('media_set_transaction_not_found', `No transaction ${id} in this media set.`, { details: { transactionId: id } });
  return tx;
}

/** The open transaction; a committed or aborted one is a conflict. */
export async function openTransactionOf(db: DbOrTrx, set: SetRow, id: string) {
  const tx = await transactionOf(db, set, id);
  if (tx.state !== 'OPEN') {
    throw new DomainError('conflict', `Transaction ${id} is ${tx.state.toLowerCase()}.`, {
      details: { transactionId: id, state: tx.state },
    });
  }
  return tx;
}

export async function stagedCount(db: DbOrTrx, transactionId: string): Promise<number> {
  const row = await db
    .selectFrom('media_items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('transaction_id', '=', transactionId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const transactionView = (
  set: SetRow,
  tx: { id: string; branch_name: string },
  state: MediaTransactionView['state'],
  itemCount: number,
): MediaTransactionView => ({ transactionId: tx.id, mediaSetRid: setRid(set.id), branchName: tx.branch_name, state, itemCount });

/** The set (which the caller may write to) and its open transaction, locked for a commit or an abort. */
export async function transactionToClose(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, rid: string, transactionId: string) {
  const set = await mediaSetFor(deps, principal, rid, 'media-set.write');
  return { set, tx: await openTransactionOf(deps.db, set, transactionId) };
}
