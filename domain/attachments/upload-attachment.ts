import { createHash, randomUUID } from 'node:crypto';
import { ATTACHMENT_LIMITS, type Attachment } from '../../schemas/attachments.ts';
import { MEDIA_LIMITS } from '../../schemas/media.ts';
import { problem } from '../../schemas/problems.ts';
import { assertBlobDestination, type BlobStore } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { attachmentRows, attachmentView } from './repository.ts';

export interface UploadAttachmentInput {
  filename: string;
  /** The request's Content-Type; none: application/octet-stream. */
  contentType?: string | undefined;
  /** The company (namespace) named by a session of several companies. */
  ontology?: string | undefined;
}

/** The bytes as stored, and the company they belong to. */
export interface AcceptedAttachment {
  companyId: string;
  sha256: string;
  size: number;
}

/**
 * The company an attachment belongs to: a key's, a ticket's app's, a session's only license (or
 * the one it names). Official public apps have no ontology to attach to.
 */
function companyOf(principal: Principal, named: string | undefined): { id: string; namespace: string } {
  const outside = () => new DomainError('forbidden', `This credential cannot act for ${named}.`, { details: { ontology: named ?? null } });
  const only = (company: { id: string; namespace: string }) => {
    if (named !== undefined && named !== company.namespace) throw outside();
    return company;
  };
  if (principal.kind === 'key') return only({ id: principal.company.id, namespace: principal.company.cellId });
  if (principal.kind === 'ticket') {
    if (principal.ticket.companyId === null)
      throw new DomainError('forbidden', 'Official public apps have no ontology to attach files to.');
    return only({ id: principal.ticket.companyId, namespace: principal.ticket.namespace });
  }
  const licenses = named === undefined ? principal.licenses : principal.licenses.filter((l) => l.cellId === named);
  if (licenses.length === 1) return { id: licenses[0]!.companyId, namespace: licenses[0]!.cellId };
  if (licenses.length === 0) throw named === undefined ? new DomainError('forbidden', 'This account acts for no company.') : outside();
  throw new DomainError('company_required', 'This account acts for several companies: name one in `ontology`.', {
    details: { companies: licenses.map((l) => l.cellId) },
  });
}

const tooLarge = () =>
  new DomainError('attachment_size_exceeded_limit', `An attachment is at most ${ATTACHMENT_LIMITS.bytes} bytes.`, {
    details: { limitBytes: ATTACHMENT_LIMITS.bytes },
  });

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The request's media type (parameters dropped), application/octet-stream when none is sent; anything else malformed is refused. */
function mediaTypeOf(contentType: string | undefined): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '') return 'application/octet-stream';
  if (!MEDIA_TYPE.test(type)) {
    throw new DomainError('invalid_payload', 'Content-Type is not a media type such as image/png.', {
      details: { problems: [problem('header.content-type', 'invalid_media_type', 'must be a media type such as image/png')] },
    });
  }
  return type;
}

/**
 * Reads and stores an attachment's bytes once by SHA-256 in the media content store (small ones
 * in PostgreSQL, larger ones in S3), before the write's transaction: the store is not
 * transactional, so a later failure leaves an unreferenced blob only. Checked first, so a refused
 * upload reads no body. A dry run reads and hashes but stores nothing.
 */
export async function acceptAttachmentBytes(
  deps: { blobs: BlobStore },
  principal: Principal,
  input: UploadAttachmentInput,
  body: { declaredBytes: number | undefined; read(limit: number): Promise<Buffer> },
  dryRun: boolean,
): Promise<AcceptedAttachment> {
  const company = companyOf(principal, input.ontology);
  authorize(principal, 'attachment.upload', { namespace: company.namespace });
  mediaTypeOf(input.contentType);
  const admit = (size: number) => {
    if (size > ATTACHMENT_LIMITS.bytes) throw tooLarge();
    assertBlobDestination(deps.blobs, size, MEDIA_LIMITS.databaseItemBytes, 'Attachments');
  };
  if (body.declaredBytes !== undefined) admit(body.declaredBytes);
  const bytes = await body.read(ATTACHMENT_LIMITS.bytes).catch((err: unknown) => {
    // The reader's own limit is the attachment's: said in the attachment's code.
    throw err instanceof DomainError && err.code === 'payload_too_large' ? tooLarge() : err;
  });
  admit(bytes.length);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (!dryRun) await deps.blobs.put([{ sha256, bytes }]);
  return { companyId: company.id, sha256, size: bytes.length };
}

/** Records an uploaded attachment of the caller's company; it must be linked to an object within the hour. */
export async function uploadAttachment(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: UploadAttachmentInput,
  content: AcceptedAttachment,
): Promise<Attachment> {
  const id = randomUUID();
  await deps.db
    .insertInto('attachments')
    .values({
      id,
      company_id: content.companyId,
      filename: input.filename,
      media_type: mediaTypeOf(input.contentType),
      size: content.size,
      sha256: Buffer.from(content.sha256, 'hex'),
      created_by: principal.account.id,
      created_at: deps.clock.now(),
    })
    .execute();
  return attachmentView(await attachmentRows(deps.db).where('a.id', '=', id).executeTakeFirstOrThrow());
}
