import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateKey, isWellFormedKey } from '../../../domain/keys/key-format.ts';
import { fromBase62, toBase62 } from '../../../domain/security/random.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const decode = (text: string) => [...text].reduce((n, c) => n * 62n + BigInt(BASE62.indexOf(c)), 0n);
const bigEndianValue = (bytes: Uint8Array) => bytes.reduce((n, b) => n * 256n + BigInt(b), 0n);

describe('toBase62', () => {
  // Short inputs take the number path, long ones the BigInt path: both must spell the same value.
  it('spells the bytes’ big-endian value, padded to the width, for short and long inputs', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 24 }), (bytes) => {
        const text = toBase62(bytes, 40);
        expect(text).toHaveLength(40);
        expect(decode(text)).toBe(bigEndianValue(bytes));
      }),
    );
  });

  it('is read back by fromBase62 for values up to 6 bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 6 }), (bytes) => {
        expect(BigInt(fromBase62(toBase62(bytes, 6)))).toBe(bigEndianValue(bytes));
      }),
    );
  });

  it('spells the largest 6-byte value exactly', () => {
    expect(decode(toBase62(new Uint8Array(6).fill(255), 0))).toBe(2n ** 48n - 1n);
  });
});

describe('isWellFormedKey', () => {
  it('accepts a generated key and refuses it changed in any one character', () => {
    const { plaintext } = generateKey();
    expect(isWellFormedKey(plaintext)).toBe(true);
    for (let i = 'svc-dk-'.length; i < plaintext.length; i++) {
      const changed = plaintext.slice(0, i) + (plaintext[i] === 'a' ? 'b' : 'a') + plaintext.slice(i + 1);
      expect(isWellFormedKey(changed)).toBe(false);
    }
  });
});
