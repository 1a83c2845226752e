import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { HostedFile } from '../apps/index.ts';
import { BoundedCache } from '../cache/index.ts';
import type { DomainDeps } from '../deps.ts';
import { blobBytes } from './blob-bytes.ts';

export type ContentEncoding = 'br' | 'gzip';

const COMPRESSIBLE = /^(text\/|application\/(json|manifest\+json|wasm)|image\/svg\+xml)/;
/** Below this, headers outweigh what compression saves. */
const MIN_BYTES = 256;
/** The cache's bound when the deps set none (SVC_HOSTING_COMPRESSED_CACHE_BYTES's default). */
const DEFAULT_COMPRESSED_CACHE_BYTES = 64 * 1024 * 1024;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

// Compressed once per content and encoding, at first use, and kept by content hash (so identical
// files of every app and version share one entry); `null` remembers that compressing did not pay.
// The work runs on libuv's thread pool, never on the event loop. One cache per blob store (a process
// has one; tests make several), bounded by deps.compressedCacheBytes, part of the memory budget.
const variantsByStore = new WeakMap<DomainDeps['blobs'], BoundedCache<string, Buffer | null>>();
function variantCache(deps: DomainDeps): BoundedCache<string, Buffer | null> {
  let cache = variantsByStore.get(deps.blobs);
  if (!cache) {
    cache = new BoundedCache<string, Buffer | null>(deps.compressedCacheBytes ?? DEFAULT_COMPRESSED_CACHE_BYTES, (v) =>
      v ? v.length : 64,
    );
    variantsByStore.set(deps.blobs, cache);
  }
  return cache;
}
const inFlight = new Map<string, Promise<Buffer | null>>();

function isCompressible(contentType: string): boolean {
  return COMPRESSIBLE.test(contentType);
}

/** The file compressed with `encoding`, or undefined when it is not worth it (serve the bytes as they are). */
export async function compressedVariant(deps: DomainDeps, file: HostedFile, encoding: ContentEncoding): Promise<Buffer | undefined> {
  if (!isCompressible(file.contentType)) return undefined;
  const key = `${file.hex} ${encoding}`;
  const cached = variantCache(deps).get(key);
  if (cached !== undefined) return cached ?? undefined;
  let pending = inFlight.get(key);
  if (!pending) {
    pending = compress(deps, file, encoding).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return (await pending) ?? undefined;
}

async function compress(deps: DomainDeps, file: HostedFile, encoding: ContentEncoding): Promise<Buffer | null> {
  const bytes = await blobBytes(deps, file.sha256);
  const packed =
    bytes.length < MIN_BYTES
      ? null
      : encoding === 'br'
        ? await brotli(bytes, {
            params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
          })
        : await gzipAsync(bytes, { level: 9 });
  const worth = packed && packed.length < bytes.length ? packed : null;
  variantCache(deps).set(`${file.hex} ${encoding}`, worth);
  return worth;
}
