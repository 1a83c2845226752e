import { ATTACHMENT_LIMITS } from '../../schemas/attachments.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { type AttachmentRow, attachmentIdOf, attachmentRid, expiredAt, findAttachment, linkCount, notFound } from './repository.ts';

/** One object's attachment property as the writer leaves it: the attachment it holds (null: none, or the object is gone). */
export interface AttachmentSlot {
  objectTypeId: string;
  primaryKey: string;
  property: string;
  rid: string | null;
}

/**
 * An attachment of the company that may still be linked: uploaded in this company, and used
 * already or uploaded within the hour. Anything else is attachment_not_found, so another
 * company's attachments cannot even be probed.
 */
export async function linkableAttachment(
  db: DbOrTrx,
  companyId: string,
  rid: string,
  now: Date,
): Promise<{ row: AttachmentRow; links: number }> {
  const row = await findAttachment(db, rid);
  if (!row || row.company_id !== companyId) throw notFound(rid);
  const links = await linkCount(db, row.id);
  if (expiredAt(row, links, now)) {
    throw notFound(rid, `Attachment ${rid} was not used within an hour of its upload: upload it again.`);
  }
  return { row, links };
}

/**
 * Keeps the links in step with the objects' attachment properties, in the writer's transaction:
 * each slot's previous link is dropped and its new one recorded; each attachment newly linked must
 * be linkable (linkableAttachment) and ends linked to at most 10 objects (conflict otherwise, and
 * the whole write rolls back).
 */
export async function syncAttachmentLinks(db: DbOrTrx, companyId: string, now: Date, slots: readonly AttachmentSlot[]): Promise<void> {
  const added = new Set<string>();
  for (const slot of slots) {
    const current = await db
      .selectFrom('attachment_links')
      .select('attachment_id')
      .where('object_type_id', '=', slot.objectTypeId)
      .where('primary_key', '=', slot.primaryKey)
      .where('property', '=', slot.property)
      .executeTakeFirst();
    const next = slot.rid === null ? undefined : attachmentIdOf(slot.rid);
    if (current?.attachment_id === next) continue;
    if (next !== undefined) added.add(next);
    await db
      .deleteFrom('attachment_links')
      .where('object_type_id', '=', slot.objectTypeId)
      .where('primary_key', '=', slot.primaryKey)
      .where('property', '=', slot.property)
      .execute();
    if (next === undefined) continue;
    // Checked before the row exists (a first link within the hour makes it used); locked, so
    // concurrent writers count one another's links.
    await db.selectFrom('attachments').select('id').where('id', '=', next).forUpdate().execute();
    await linkableAttachment(db, companyId, slot.rid!, now);
    await db
      .insertInto('attachment_links')
      .values({ object_type_id: slot.objectTypeId, primary_key: slot.primaryKey, property: slot.property, attachment_id: next })
      .execute();
  }
  for (const id of added) {
    const links = await linkCount(db, id);
    if (links > ATTACHMENT_LIMITS.objects) {
      throw new DomainError(
        'conflict',
        `An attachment is linked to at most ${ATTACHMENT_LIMITS.objects} objects; upload it again for more.`,
        {
          details: { attachmentRid: attachmentRid(id), limit: ATTACHMENT_LIMITS.objects, links },
        },
      );
    }
  }
}
