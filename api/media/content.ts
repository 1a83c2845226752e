import type { MediaItemView } from '../../schemas/media.ts';

/** What reading through an object can answer before its own errors (a property's media, an attachment). */
export const OBJECT_READ_ERRORS = [
  'unauthorized',
  'invalid_session',
  'invalid_path',
  'ontology_not_found',
  'object_type_not_found',
  'object_not_found',
  'property_not_found',
] as const;

/** What a content answer needs of what it sends (a media item, a transformation result, an attachment). */
export type ContentItem = Pick<MediaItemView, 'path' | 'mimeType' | 'sha256'>;

// How an item's bytes are answered: one HTTP range at most, a strong ETag (the content's SHA-256),
// and headers that keep uploaded HTML or SVG from ever running on the service's origin.

/** `bytes=a-b`, `bytes=a-`, `bytes=-n`: the one range asked for, 'unsatisfiable', or undefined (no range, or several: the whole item). */
export function rangeOf(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim());
  if (!match) return undefined;
  const [, from = '', to = ''] = match;
  if (from === '' && to === '') return undefined;
  if (from === '') {
    const suffix = Number(to);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (to !== '' && Number(to) < start) return undefined;
  return start >= size ? 'unsatisfiable' : { start, end };
}

/** Types a browser may show in place without running anything of the item's (no HTML, no SVG). */
const INLINE = /^(?:image\/(?:png|jpeg|gif|webp|avif|bmp)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+|application\/pdf|text\/plain)$/;

export function contentHeaders(item: ContentItem): Record<string, string> {
  const name = item.path.split('/').at(-1) ?? 'item';
  const disposition = INLINE.test(item.mimeType) ? 'inline' : 'attachment';
  return {
    'Content-Type': item.mimeType,
    ETag: `"${item.sha256}"`,
    'Accept-Ranges': 'bytes',
    'Content-Disposition': `${disposition}; filename*=UTF-8''${encodeURIComponent(name)}`,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'",
    'Cross-Origin-Resource-Policy': 'same-origin',
    // Bytes never change under a rid: a private cache may keep them; revalidation is by ETag.
    'Cache-Control': 'private, no-cache',
  };
}

/** Whether an If-None-Match header names this ETag (or `*`). */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim().replace(/^W\//, '');
    return t === '*' || t === etag;
  });
}

/**
 * What a content answer sends: its item, its size, and its bytes, read only as far as answered (all,
 * or one inclusive range; nothing for 304 or 416), so a range of a large composite media item reads
 * only the parts it covers.
 */
export interface Content {
  item: ContentItem;
  size: number;
  read(range?: { start: number; end: number }): Promise<Buffer>;
}

/** Content already in memory (an attachment, a transformation's result, a thumbnail). */
export function contentOf({ item, bytes }: { item: ContentItem; bytes: Buffer }): Content {
  return { item, size: bytes.length, read: async (range) => (range ? bytes.subarray(range.start, range.end + 1) : bytes) };
}

/** An item's bytes as answered (304 by ETag, 416, 206 for one range, else 200), with the headers above. */
export async function contentAnswer({ item, size, read }: Content, ctx: { get(header: string): string }) {
  const headers = contentHeaders(item);
  if (notModified(ctx.get('if-none-match') || undefined, headers.ETag!)) return { status: 304, data: Buffer.alloc(0), headers };
  const range = rangeOf(ctx.get('range') || undefined, size);
  if (range === 'unsatisfiable') return { status: 416, data: Buffer.alloc(0), headers: { ...headers, 'Content-Range': `bytes */${size}` } };
  if (range === undefined) return { status: 200, data: await read(), headers };
  return {
    status: 206,
    data: await read(range),
    headers: { ...headers, 'Content-Range': `bytes ${range.start}-${range.end}/${size}` },
  };
}
