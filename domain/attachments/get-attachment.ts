import type { Attachment } from '../../schemas/attachments.ts';
import type { BlobStore } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { type AttachmentRow, attachmentView, contentItem, findAttachment, notFound } from './repository.ts';

/** The attachment a rid names, once the policy lets the caller read it by rid (its uploader, the company's data developers). */
async function readable(db: DbOrTrx, principal: Principal, rid: string): Promise<AttachmentRow> {
  const row = await findAttachment(db, rid);
  if (!row) throw notFound(rid);
  authorize(principal, 'attachment.read', { rid, namespace: row.cell_id, uploadedByCaller: row.created_by === principal.account.id });
  return row;
}

/** `GET /api/v1/ontologies/attachments/{attachmentRid}`: its name, size and media type. */
export async function getAttachment(deps: { db: DbOrTrx }, principal: Principal, rid: string): Promise<Attachment> {
  return attachmentView(await readable(deps.db, principal, rid));
}

/** An attachment's bytes as a content answer needs them (checked against their hash by the content store). */
export async function attachmentContent(blobs: BlobStore, row: AttachmentRow) {
  const item = contentItem(row);
  return { item, bytes: await blobs.get(item.sha256) };
}

/** `GET /api/v1/ontologies/attachments/{attachmentRid}/content`. */
export async function readAttachment(deps: { db: DbOrTrx; blobs: BlobStore }, principal: Principal, rid: string) {
  return attachmentContent(deps.blobs, await readable(deps.db, principal, rid));
}

/** The attachment an object's property holds, read through the object (the caller already read the object): any company's row but this one's is none. */
export async function heldAttachment(db: DbOrTrx, companyId: string, rid: string): Promise<AttachmentRow> {
  const row = await findAttachment(db, rid);
  if (!row || row.company_id !== companyId) throw notFound(rid);
  return row;
}
