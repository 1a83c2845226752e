// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { attachmentContent, getAttachment, heldAttachment, readAttachment } from './get-attachment.ts';
export { type AttachmentSlot, linkableAttachment, syncAttachmentLinks } from './link-attachments.ts';
export { removeUnusedAttachments } from './remove-unused-attachments.ts';
export { type AttachmentRow, attachmentView } from './repository.ts';
export { type AcceptedAttachment, acceptAttachmentBytes, type UploadAttachmentInput, uploadAttachment } from './upload-attachment.ts';
