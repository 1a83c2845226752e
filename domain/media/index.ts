// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { abortMediaTransaction } from './abort-media-transaction.ts';
export { type AssemblyOutcome, assembleMediaUpload } from './assemble-media-upload.ts';
export { attachMediaUpload } from './attach-media-upload.ts';
export { commitMediaTransaction } from './commit-media-transaction.ts';
export { completeMediaUpload } from './complete-media-upload.ts';
export { createMediaSet } from './create-media-set.ts';
export { createMediaUpload } from './create-media-upload.ts';
export { deleteMediaUpload } from './delete-media-upload.ts';
export { getMediaItemInfo, getMediaItemRidByPath, readMediaItem } from './get-media-item.ts';
export { getMediaSet } from './get-media-set.ts';
export { getMediaTransformationStatus, readMediaTransformationResult } from './get-media-transformation.ts';
export { listMediaItems } from './list-media-items.ts';
export { listMediaSets } from './list-media-sets.ts';
export { openMediaTransaction } from './open-media-transaction.ts';
export { purgeAbandonedMediaUploads } from './purge-media-uploads.ts';
export { acceptMediaBytes, type PutMediaItemInput, putMediaItem } from './put-media-item.ts';
export { acceptUploadPart, putMediaUploadPart } from './put-media-upload-part.ts';
export { recordMediaTransformation, runMediaTransformation, type TransformationOutcome } from './transform-media-item.ts';
