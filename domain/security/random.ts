import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Big-endian bytes as base62, left-padded to `width` so equal-size inputs give equal-length text. */
export function toBase62(bytes: Uint8Array, width: number): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out.padStart(width, '0');
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
  return createHash('sha256').update(value, 'utf8').digest();
}

export function equalHashes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
