import type { DomainDeps } from '../deps.ts';

/** File bytes by content hash, as version rows store it: the blob store verifies and caches them. */
export function blobBytes(deps: Pick<DomainDeps, 'blobs'>, sha256: Buffer): Promise<Buffer> {
  return deps.blobs.get(sha256.toString('hex'));
}
