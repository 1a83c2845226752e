import type { Attachment } from '../../schemas/attachments.ts';
import type { BlobStore } from '../apps/index.ts';
import { type AttachmentRow, attachmentContent, attachmentView, heldAttachment } from '../attachments/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { openOntology, readableType } from './data-access.ts';
import { findObject } from './get-object.ts';

export interface ObjectAttachmentInput {
  ontology: string;
  objectType: string;
  primaryKey: string;
  property: string;
}

/**
 * The attachment an object's attachment property holds, read as the object is (the caller's
 * DataAccess, the type's markings and object security: an object the caller cannot read is
 * object_not_found); a property holding none is attachment_not_found.
 */
async function heldBy(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, input: ObjectAttachmentInput): Promise<AttachmentRow> {
  const open = await openOntology(deps, principal, input.ontology);
  const type = readableType(open, input.objectType);
  if (!Object.hasOwn(type.properties, input.property) || type.properties[input.property]!.dataType.type !== 'attachment') {
    throw new DomainError('property_not_found', `${input.objectType} has no attachment property ${input.property}.`, {
      details: { objectType: input.objectType, property: input.property },
    });
  }
  const object = await findObject(deps.db, open, input.objectType, input.primaryKey, [input.property]);
  const rid = (object[input.property] as { rid?: string } | undefined)?.rid;
  if (rid === undefined) {
    throw new DomainError('attachment_not_found', `${input.objectType} ${input.primaryKey} holds no attachment in ${input.property}.`, {
      details: { objectType: input.objectType, primaryKey: input.primaryKey, property: input.property },
    });
  }
  return heldAttachment(deps.db, open.ontology.companyId, rid);
}

/** `GET …/objects/{objectType}/{primaryKey}/attachments/{property}` (Foundry listPropertyAttachments: one attachment per property here). */
export async function getObjectAttachment(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: ObjectAttachmentInput,
): Promise<Attachment & { type: 'single' }> {
  return { type: 'single', ...attachmentView(await heldBy(deps, principal, input)) };
}

/** `GET …/attachments/{property}/content` (Foundry readPropertyAttachment). */
export async function readObjectAttachment(
  deps: { db: DbOrTrx; clock: Clock; blobs: BlobStore },
  principal: Principal,
  input: ObjectAttachmentInput,
) {
  return attachmentContent(deps.blobs, await heldBy(deps, principal, input));
}
