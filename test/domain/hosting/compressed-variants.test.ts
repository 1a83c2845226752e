import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DomainDeps } from '../../../domain/deps.ts';
import { compressedVariant } from '../../../domain/hosting/index.ts';

// Compressed copies of hosted files are kept per blob store within deps.compressedCacheBytes
// (SVC_HOSTING_COMPRESSED_CACHE_BYTES), part of the memory budget: within it a file is read and
// compressed once; a bound of 0 keeps none.
function withFile(compressedCacheBytes?: number) {
  const bytes = Buffer.from('<p>svc</p>'.repeat(200));
  const hex = createHash('sha256').update(bytes).digest('hex');
  let reads = 0;
  const blobs = {
    get: async (sha256: string) => {
      expect(sha256).toBe(hex);
      reads++;
      return bytes;
    },
  } as unknown as DomainDeps['blobs'];
  const deps = { blobs, ...(compressedCacheBytes === undefined ? {} : { compressedCacheBytes }) } as DomainDeps;
  const file = { sha256: Buffer.from(hex, 'hex'), hex, contentType: 'text/html; charset=utf-8' };
  return { deps, file, bytes, reads: () => reads };
}

describe('compressedVariant', () => {
  it('reads and compresses a file once, by default', async () => {
    const { deps, file, bytes, reads } = withFile();
    const first = await compressedVariant(deps, file, 'br');
    expect(first!.length).toBeLessThan(bytes.length);
    expect(await compressedVariant(deps, file, 'br')).toBe(first);
    expect(reads()).toBe(1);
  });

  it('keeps nothing with a bound of 0: each request compresses the file again', async () => {
    const { deps, file, reads } = withFile(0);
    const first = await compressedVariant(deps, file, 'gzip');
    const second = await compressedVariant(deps, file, 'gzip');
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    expect(reads()).toBe(2);
  });

  it('keeps no copy larger than the bound', async () => {
    const { deps, file, reads } = withFile(16);
    expect((await compressedVariant(deps, file, 'gzip'))!.length).toBeGreaterThan(16);
    await compressedVariant(deps, file, 'gzip');
    expect(reads()).toBe(2);
  });
});
