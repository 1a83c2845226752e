import { createHash } from 'node:crypto';
import { MODELING_LIMITS } from '../../schemas/modeling.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';

/** A scene document as stored: its serialized bytes and their SHA-256 (the blob store's key). */
export interface StoredDocument {
  bytes: Buffer;
  sha256: Buffer;
}

/** Serializes a document, refusing one above MODELING_LIMITS.assetBytes with 413. */
export function serializeDocument(document: Record<string, unknown>): StoredDocument {
  const bytes = Buffer.from(JSON.stringify(document), 'utf8');
  if (bytes.length > MODELING_LIMITS.assetBytes) {
    throw new DomainError(
      'payload_too_large',
      `A scene document may have at most ${MODELING_LIMITS.assetBytes} bytes; this one has ${bytes.length}.`,
      {
        details: { limitBytes: MODELING_LIMITS.assetBytes, bytes: bytes.length },
      },
    );
  }
  return { bytes, sha256: createHash('sha256').update(bytes).digest() };
}

/** Stores the bytes in the blob store (each content once; not transactional: a rollback leaves an unreferenced blob only). */
export async function storeDocument(deps: Pick<DomainDeps, 'blobs'>, doc: StoredDocument): Promise<void> {
  await deps.blobs.put([{ sha256: doc.sha256.toString('hex'), bytes: doc.bytes }]);
}

export async function readDocument(deps: Pick<DomainDeps, 'blobs'>, sha256: Buffer): Promise<Record<string, unknown>> {
  return JSON.parse((await deps.blobs.get(sha256.toString('hex'))).toString('utf8')) as Record<string, unknown>;
}
