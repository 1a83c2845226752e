// Strict decoding of file contents. Lenient decoders (Buffer.from) silently skip bad base64
// characters and replace broken UTF-16, which would store something other than what was sent.

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** 6-bit value of each ASCII character code, -1 outside the alphabet. */
const SEXTETS = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64_ALPHABET.length; i += 1) SEXTETS[BASE64_ALPHABET.charCodeAt(i)] = i;

/** A bundle file that passed path and decoding checks; `index` is its position in the request. */
export type DecodedFile = { index: number; path: string; bytes: Buffer; text: string | undefined };

export type Decoded = { ok: true; bytes: Buffer } | { ok: false; code: string; message: string };

function base64Padding(content: string): number {
  return content.endsWith('==') ? 2 : content.endsWith('=') ? 1 : 0;
}

/**
 * Bytes that `content` decodes to, computed from its length without decoding, so that an
 * oversized bundle is refused before any work on its contents (an estimate for invalid base64).
 */
export function decodedSize(encoding: 'utf8' | 'base64', content: string): number {
  if (encoding === 'utf8') return Buffer.byteLength(content, 'utf8');
  return Math.max(0, Math.floor((content.length * 3) / 4) - base64Padding(content));
}

// Canonical base64: standard alphabet, no whitespace, padding only where required, and zero bits
// in the unused part of the last character (non-zero ones decode the same, so the stored bytes
// would not be what was sent). Why a text is not canonical, in one pass over the characters.
function base64Problem(content: string): string | undefined {
  if (content.length % 4 !== 0) return 'content is not valid base64 (its length is not a multiple of 4)';
  const padding = base64Padding(content);
  for (let i = 0; i < content.length - padding; i += 1) {
    const code = content.charCodeAt(i);
    if (code >= 128 || (SEXTETS[code] as number) < 0) return 'content is not valid base64 (characters or padding)';
  }
  const last = SEXTETS[content.charCodeAt(content.length - padding - 1)] ?? 0;
  const unusedBits = padding === 2 ? 0b1111 : padding === 1 ? 0b11 : 0;
  if ((last & unusedBits) !== 0) return 'base64 content is not canonical (non-zero padding bits)';
  return undefined;
}

export function decodeContent(encoding: 'utf8' | 'base64', content: string): Decoded {
  if (encoding === 'utf8') {
    return content.isWellFormed()
      ? { ok: true, bytes: Buffer.from(content, 'utf8') }
      : { ok: false, code: 'content_invalid_utf8', message: 'utf8 content contains an unpaired surrogate' };
  }
  // Canonical exactly when encoding the decoded bytes gives the text back (Node's encoder writes
  // only canonical base64); both run natively, far faster than a check in JavaScript. The
  // character-by-character check then only explains a refusal.
  const bytes = Buffer.from(content, 'base64');
  if (bytes.toString('base64') === content) return { ok: true, bytes };
  return { ok: false, code: 'content_invalid_base64', message: base64Problem(content) ?? 'content is not valid base64' };
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
