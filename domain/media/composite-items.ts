import type { BlobStore } from '../apps/index.ts';
import type { Db, DbOrTrx } from '../db/index.ts';

// Composite items: an item assembled from an upload session's parts is the ordered list of the
// parts' blobs, not a copy of their bytes. Each part was stored under its own SHA-256 when it was
// received and is checked against it whenever it is read (the content store's get); the list is
// recorded under the item's SHA-256 only once the item's bytes hashed to it, so whoever reads the
// parts in order reads the item. Every reader of an item's bytes goes through readItemContent.

/** A part of a composite, as it is recorded: its blob and its size (its start follows from the parts before it). */
export interface CompositePart {
  sha256: string;
  size: number;
}

/**
 * Records `sha256` as the concatenation of `parts`, unless an item of that hash is recorded already
 * (an identical item uploaded again reuses the first list; its own parts then go with the blob
 * sweep). The hash is touched in the sweep's ledger first, as a blob's write is: the sweep keeps the
 * list (and so its parts) for the grace period, in which the caller makes a row name the item.
 */
export async function recordCompositeItem(deps: { db: Db; blobs: BlobStore }, sha256: string, parts: readonly CompositePart[]) {
  await deps.blobs.touch([sha256]);
  const key = Buffer.from(sha256, 'hex');
  await deps.db.transaction().execute(async (trx) => {
    const size = parts.reduce((sum, p) => sum + p.size, 0);
    const inserted = await trx
      .insertInto('media_composites')
      .values({ sha256: key, size })
      .onConflict((oc) => oc.column('sha256').doNothing())
      .executeTakeFirst();
    if (inserted.numInsertedOrUpdatedRows === 0n) return;
    let start = 0;
    const rows = parts.map((p, position) => {
      const row = { item_sha256: key, position, part_sha256: Buffer.from(p.sha256, 'hex'), start, size: p.size };
      start += p.size;
      return row;
    });
    await trx.insertInto('media_composite_parts').values(rows).execute();
  });
}

/** An item with its size and a reader of its bytes (all, or an inclusive range), read only when asked. */
export function itemContent<I extends { sha256: string; sizeBytes: number }>(deps: { db: DbOrTrx; blobs: BlobStore }, item: I) {
  return { item, size: item.sizeBytes, read: (range?: { start: number; end: number }) => readItemContent(deps, item.sha256, range) };
}

/**
 * The bytes of the item stored under `sha256`, or of the inclusive byte range `range` within it: a
 * composite item's from the parts the range covers (exact across part boundaries), any other item
 * as one blob. Each blob is checked against its hash by the store (CorruptBlobError,
 * MissingBlobError as its get).
 */
export async function readItemContent(
  deps: { db: DbOrTrx; blobs: BlobStore },
  sha256: string,
  range?: { start: number; end: number },
): Promise<Buffer> {
  let parts = deps.db
    .selectFrom('media_composite_parts')
    .select(['part_sha256', 'start', 'size'])
    .where('item_sha256', '=', Buffer.from(sha256, 'hex'))
    .orderBy('position');
  if (range) parts = parts.where('start', '<=', range.end).where((eb) => eb(eb('start', '+', eb.ref('size')), '>', range.start));
  const covering = await parts.execute();
  if (covering.length === 0) {
    // Not a composite (a range of a composite covers at least one part).
    const bytes = await deps.blobs.get(sha256);
    return range ? bytes.subarray(range.start, range.end + 1) : bytes;
  }
  const pieces = await Promise.all(
    covering.map(async (part) => {
      const bytes = await deps.blobs.get(part.part_sha256.toString('hex'));
      if (!range) return bytes;
      return bytes.subarray(Math.max(0, range.start - part.start), Math.min(part.size, range.end + 1 - part.start));
    }),
  );
  return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
}
