import { createHash, randomUUID } from 'node:crypto';
import { type BranchSelector, MEDIA_LIMITS, type MediaItemView } from '../../schemas/media.ts';
import type { BlobStore } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { assertAdmitted } from './media-types.ts';
import { branchOf, checkedPath, itemIdOf, itemRid, itemRows, itemView, mediaSetFor, type SetRow } from './repository.ts';
import { openTransactionOf, stagedCount } from './transactions.ts';
import { assertDestination } from './uploads.ts';

export interface PutMediaItemInput {
  mediaSetRid: string;
  path: string | undefined;
  contentType: string | undefined;
  selector: BranchSelector;
  transactionId?: string | undefined;
  /** The new item's rid, chosen by the caller (media_item_rid_already_exists when taken); none: a new one. */
  mediaItemRid?: string | undefined;
}

/** What an item put checks before its bytes are read: the caller may write, the path is safe, the set takes the type, a rid given is free. */
async function admitted(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, input: PutMediaItemInput) {
  const set = await mediaSetFor(deps, principal, input.mediaSetRid, 'media-set.write');
  const checked = { set, path: checkedPath(input.path), mimeType: assertAdmitted(set, input.contentType) };
  if (input.mediaItemRid !== undefined) {
    const taken = await deps.db.selectFrom('media_items').select('id').where('id', '=', itemIdOf(input.mediaItemRid)).executeTakeFirst();
    if (taken) throw ridTaken(input.mediaItemRid);
  }
  return checked;
}

/** A rid held by an item now, in any set, staged or visible: a rid names one item only. */
const ridTaken = (rid: string) =>
  new DomainError('media_item_rid_already_exists', `A media item ${rid} already exists.`, { details: { mediaItemRid: rid } });

const tooLarge = (limit: number) =>
  new DomainError('payload_too_large', `A media item put directly is at most ${limit} bytes; larger items go through upload sessions.`, {
    details: { limitBytes: limit },
  });

/**
 * Reads and stores an item's bytes once by SHA-256, before the write's transaction (the content
 * store is not transactional: a later failure leaves an unreferenced blob only). Checked first, so
 * a refused put reads no body. Items above the database's share need an S3 store
 * (media_upload_destination_not_configured). A dry run reads and hashes but stores nothing.
 */
export async function acceptMediaBytes(
  deps: { db: DbOrTrx; clock: Clock; blobs: BlobStore },
  principal: Principal,
  input: PutMediaItemInput,
  body: { declaredBytes: number | undefined; read(limit: number): Promise<Buffer> },
  dryRun: boolean,
): Promise<{ sha256: string; size: number }> {
  await admitted(deps, principal, input);
  const limit = MEDIA_LIMITS.putItemBytes;
  const destination = (size: number) => {
    if (size > limit) throw tooLarge(limit);
    assertDestination(deps.blobs, size);
  };
  if (body.declaredBytes !== undefined) destination(body.declaredBytes);
  const bytes = await body.read(limit);
  destination(bytes.length);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (!dryRun) await deps.blobs.put([{ sha256, bytes }]);
  return { sha256, size: bytes.length };
}

/**
 * Puts an item at a path: outside a transaction it is visible at once and replaces the item at
 * that path; in a transaction it is staged (replacing the one staged at that path) until the commit.
 */
export async function putMediaItem(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: PutMediaItemInput,
  content: { sha256: string; size: number },
): Promise<MediaItemView> {
  const { set, path, mimeType } = await admitted(deps, principal, input);
  const target = input.transactionId ? await stagingTarget(deps.db, set, input) : await branchOf(deps.db, set.id, input.selector);
  const transactionId = input.transactionId ?? null;
  const replaced = deps.db.deleteFrom('media_items').where('path', '=', path);
  await (transactionId
    ? replaced.where('transaction_id', '=', transactionId).where('visible', '=', false)
    : replaced.where('branch_id', '=', target.id).where('visible', '=', true)
  ).execute();
  if (transactionId && (await stagedCount(deps.db, transactionId)) >= MEDIA_LIMITS.itemsPerTransaction) {
    throw new DomainError(
      'conflict',
      `A transaction holds at most ${MEDIA_LIMITS.itemsPerTransaction} items; commit it and open another.`,
      {
        details: { limit: MEDIA_LIMITS.itemsPerTransaction, transactionId },
      },
    );
  }
  const id = input.mediaItemRid === undefined ? randomUUID() : itemIdOf(input.mediaItemRid);
  const inserted = await deps.db
    .insertInto('media_items')
    .values({
      id,
      branch_id: target.id,
      transaction_id: transactionId,
      visible: transactionId === null,
      path,
      sha256: Buffer.from(content.sha256, 'hex'),
      size: content.size,
      mime_type: mimeType,
      created_by: principal.account.id,
    })
    // A rid taken since the check (a concurrent put with the same rid): refused, not a 5xx.
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  if (inserted.numInsertedOrUpdatedRows === 0n) throw ridTaken(itemRid(id));
  return itemView(set, await itemRows(deps.db).where('i.id', '=', id).executeTakeFirstOrThrow());
}

/** The branch of an open transaction; a branch named beside it must be the same one. */
async function stagingTarget(db: DbOrTrx, set: SetRow, input: PutMediaItemInput) {
  const tx = await openTransactionOf(db, set, input.transactionId!);
  const named = Object.values(input.selector).some((v) => v !== undefined);
  if (named && (await branchOf(db, set.id, input.selector)).id !== tx.branch_id) {
    throw new DomainError('conflicting_media_set_identifiers', 'The transaction is on another branch than the one named.', {
      details: { transactionId: tx.id, branchName: tx.branch_name },
    });
  }
  return { id: tx.branch_id };
}
