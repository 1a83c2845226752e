import { ATTACHMENT_LIMITS, ATTACHMENT_RID_PREFIX, type Attachment } from '../../schemas/attachments.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';

export const attachmentRid = (id: string) => `${ATTACHMENT_RID_PREFIX}${id}`;
/** The id a rid names, or undefined when the text is no attachment rid (the rid is user input). */
export const attachmentIdOf = (rid: string) =>
  rid.startsWith(ATTACHMENT_RID_PREFIX) ? rid.slice(ATTACHMENT_RID_PREFIX.length) : undefined;

export const notFound = (rid: string, why?: string) =>
  new DomainError('attachment_not_found', why ?? `No attachment ${rid}.`, { details: { attachmentRid: rid } });

export const attachmentRows = (db: DbOrTrx) =>
  db
    .selectFrom('attachments as a')
    .innerJoin('companies as c', 'c.id', 'a.company_id')
    .select(['a.id', 'a.company_id', 'a.filename', 'a.media_type', 'a.size', 'a.sha256', 'a.created_by', 'a.created_at', 'c.cell_id']);
export type AttachmentRow = Awaited<ReturnType<ReturnType<typeof attachmentRows>['executeTakeFirstOrThrow']>>;

/** The attachment a rid names, in any company (the caller decides who may see it), or undefined. */
export async function findAttachment(db: DbOrTrx, rid: string): Promise<AttachmentRow | undefined> {
  const id = attachmentIdOf(rid);
  return id === undefined ? undefined : attachmentRows(db).where('a.id', '=', id).executeTakeFirst();
}

export const attachmentView = (row: AttachmentRow): Attachment => ({
  rid: attachmentRid(row.id),
  filename: row.filename,
  sizeBytes: row.size,
  mediaType: row.media_type,
});

/** What a content answer needs of the attachment: its name, type and hash (the strong ETag). */
export const contentItem = (row: AttachmentRow) => ({ path: row.filename, mimeType: row.media_type, sha256: row.sha256.toString('hex') });

/** Objects the attachment is linked to now. */
export async function linkCount(db: DbOrTrx, id: string): Promise<number> {
  const row = await db
    .selectFrom('attachment_links')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('attachment_id', '=', id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Unused attachments expire an hour after their upload: an expired one is no longer linkable. */
export const expiredAt = (row: { created_at: Date }, links: number, now: Date) =>
  links === 0 && now.getTime() - row.created_at.getTime() >= ATTACHMENT_LIMITS.unusedMs;
