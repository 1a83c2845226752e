import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Big-endian bytes as base62, left-padded to `width` so equal-size inputs give equal-length text. */
export function toBase62(bytes: Uint8Array, width: number): string {
  let out = '';
  // Up to 6 bytes fit a double exactly, and numbers are far cheaper than a BigInt (keys' checksums
  // are checked on every request).
  if (bytes.length <= 6) {
    for (let n = bytes.reduce((acc, b) => acc * 256 + b, 0); n > 0; n = Math.floor(n / 62)) out = BASE62[n % 62]! + out;
  } else {
    for (let n = BigInt(`0x${Buffer.from(bytes).toString('hex')}`); n > 0n; n /= 62n) out = BASE62[Number(n % 62n)]! + out;
  }
  return out.padStart(width, '0');
}

/** The number a base62 text spells; exact up to 2^53 (8 characters). */
export function fromBase62(text: string): number {
  let n = 0;
  for (const c of text) n = n * 62 + BASE62.indexOf(c);
  return n;
}

/** Characters of base62 needed for `bytes` random bytes. */
export const base62Width = (bytes: number) => Math.ceil((bytes * 8) / Math.log2(62));

/** A random base62 string carrying `bytes * 8` bits. */
export function randomBase62(bytes: number): string {
  return toBase62(randomBytes(bytes), base62Width(bytes));
}

/** Application-generated ids (never database sequences, so a rolled-back dry run leaves no trace). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(15)}`;
}

export function sha256(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/** The same digest as hex text: several times cheaper than a Buffer when a text key is wanted anyway. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

export function equalHashes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
