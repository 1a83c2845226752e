// Strict decoding of file contents. Lenient decoders (Buffer.from) silently skip bad base64
// characters and replace broken UTF-16, which would store something other than what was sent.

// Canonical base64: standard alphabet, no whitespace, padding only where required.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A bundle file that passed path and decoding checks; `index` is its position in the request. */
export type DecodedFile = { index: number; path: string; bytes: Buffer; text: string | undefined };

export type Decoded = { ok: true; bytes: Buffer } | { ok: false; code: string; message: string };

export function decodeContent(encoding: 'utf8' | 'base64', content: string): Decoded {
  if (encoding === 'utf8') {
    return content.isWellFormed()
      ? { ok: true, bytes: Buffer.from(content, 'utf8') }
      : { ok: false, code: 'content_invalid_utf8', message: 'utf8 content contains an unpaired surrogate' };
  }
  if (!BASE64.test(content))
    return { ok: false, code: 'content_invalid_base64', message: 'content is not valid base64 (characters or padding)' };
  const bytes = Buffer.from(content, 'base64');
  // Non-zero bits in the last character's unused part decode the same as zero bits; reject them.
  if (bytes.toString('base64') !== content)
    return { ok: false, code: 'content_invalid_base64', message: 'base64 content is not canonical (non-zero padding bits)' };
  return { ok: true, bytes };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Text of a text-type file, or undefined when the bytes are not valid UTF-8. */
export function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
