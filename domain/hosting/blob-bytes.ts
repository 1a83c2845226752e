import { readBlob } from '../apps/blob-store.ts';
import type { DomainDeps } from '../deps.ts';

/** The one place hosting reads file bytes (by content hash): the blob store's own cache sits behind it. */
export function blobBytes(deps: DomainDeps, sha256: Buffer): Promise<Buffer> {
  return readBlob(deps.db, sha256);
}
