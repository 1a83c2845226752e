import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UploadHashes } from '../../../domain/media/index.ts';

// The running item hashes alone: what they answer for a session fed in order, and the bound.

const hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const part = (text: string) => {
  const bytes = Buffer.from(text);
  return { bytes, recorded: { sha256: hex(bytes), size: bytes.length } };
};

describe('UploadHashes', () => {
  const a = part('first ');
  const b = part('second');

  it('answers the item hash only for exactly the parts hashed, in order', () => {
    const hashes = new UploadHashes();
    hashes.received('u', 1, a.recorded, a.bytes);
    hashes.received('u', 2, b.recorded, b.bytes);
    expect(hashes.itemHash('u', [a.recorded, b.recorded])).toBe(hex(Buffer.concat([a.bytes, b.bytes])));
    // Asked twice: the same (the running hash is not finished by answering).
    expect(hashes.itemHash('u', [a.recorded, b.recorded])).toBe(hex(Buffer.concat([a.bytes, b.bytes])));
    expect(hashes.itemHash('u', [b.recorded, a.recorded])).toBeUndefined();
    expect(hashes.itemHash('u', [a.recorded])).toBeUndefined();
    expect(hashes.itemHash('u', [a.recorded, { ...b.recorded, size: b.recorded.size + 1 }])).toBeUndefined();
    hashes.forget('u');
    expect(hashes.itemHash('u', [a.recorded, b.recorded])).toBeUndefined();
  });

  it('keeps at most its bound of sessions, dropping the least recently fed', () => {
    const hashes = new UploadHashes(2);
    for (const id of ['u1', 'u2']) hashes.received(id, 1, a.recorded, a.bytes);
    // u1 fed again: u2 is now the oldest, and goes when u3 comes.
    hashes.received('u1', 2, b.recorded, b.bytes);
    hashes.received('u3', 1, a.recorded, a.bytes);
    expect(hashes.itemHash('u1', [a.recorded, b.recorded])).toBe(hex(Buffer.concat([a.bytes, b.bytes])));
    expect(hashes.itemHash('u2', [a.recorded])).toBeUndefined();
    expect(hashes.itemHash('u3', [a.recorded])).toBe(a.recorded.sha256);
  });
});
