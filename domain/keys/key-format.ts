import { crc32 } from 'node:zlib';
import { base62Width, fromBase62, randomBase62, toBase62 } from '../security/index.ts';

// svc-dk-<33 base62 chars: 192 random bits><6 base62 chars: CRC-32 of the random part>.
// The checksum lets a mistyped or truncated key be refused before any lookup.

export const KEY_PREFIX = 'svc-dk-';
const RANDOM_BYTES = 24;
const BODY_LENGTH = base62Width(RANDOM_BYTES);
const CHECKSUM_LENGTH = 6;
const SHAPE = new RegExp(`^${KEY_PREFIX}([0-9A-Za-z]{${BODY_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);
/** Characters shown in listings: enough to tell keys apart, far too few to guess the rest. */
const DISPLAY_LENGTH = KEY_PREFIX.length + 8;

function checksum(body: string): string {
  const crc = crc32(body);
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(crc);
  return toBase62(bytes, CHECKSUM_LENGTH);
}

export function generateKey(): { plaintext: string; displayPrefix: string } {
  const body = randomBase62(RANDOM_BYTES);
  const plaintext = `${KEY_PREFIX}${body}${checksum(body)}`;
  return { plaintext, displayPrefix: plaintext.slice(0, DISPLAY_LENGTH) };
}

/** True when the text has the key's shape and a matching checksum (read as a number: checked on every request). */
export function isWellFormedKey(text: string): boolean {
  const m = SHAPE.exec(text);
  return m !== null && fromBase62(m[2]!) === crc32(m[1]!);
}
