import { randomUUID } from 'node:crypto';
import type { BranchSelector, MediaTransactionView } from '../../schemas/media.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { branchOf, ensureBranch, mediaSetFor, selectorName, setRid } from './repository.ts';

/**
 * Opens a transaction on a branch (main unless named; a new branch name makes the branch). One
 * open transaction per branch: media_set_open_transaction_already_exists names it.
 */
export async function openMediaTransaction(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  rid: string,
  selector: BranchSelector,
): Promise<MediaTransactionView> {
  const set = await mediaSetFor(deps, principal, rid, 'media-set.write');
  const named = selectorName(selector);
  const branch = named.by === 'name' ? await ensureBranch(deps.db, set.id, named.value) : await branchOf(deps.db, set.id, selector);
  const id = randomUUID();
  const opened = await deps.db
    .insertInto('media_set_transactions')
    .values({ id, branch_id: branch.id, state: 'OPEN', created_by: principal.account.id })
    .onConflict((oc) => oc.column('branch_id').where('state', '=', 'OPEN').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!opened) {
    const open = await deps.db
      .selectFrom('media_set_transactions')
      .select('id')
      .where('branch_id', '=', branch.id)
      .where('state', '=', 'OPEN')
      .executeTakeFirst();
    throw new DomainError('media_set_open_transaction_already_exists', `Branch ${branch.name} already has an open transaction.`, {
      details: { branchName: branch.name, transactionId: open?.id ?? null },
    });
  }
  return { transactionId: id, mediaSetRid: setRid(set.id), branchName: branch.name, state: 'OPEN', itemCount: 0 };
}
