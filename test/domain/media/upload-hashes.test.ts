import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UploadHashes } from '../../../domain/media/index.ts';

// The running item hashes alone: what they answer for a session fed in order, parts hashed as
// they arrive (kept only once received, and only from the state they began at), and the bound.

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

  it('keeps the hash fed as a part arrived, once the part is received, without hashing its bytes again', () => {
    const hashes = new UploadHashes();
    const first = hashes.begin('u', 1)!;
    for (const chunk of [a.bytes.subarray(0, 3), a.bytes.subarray(3)]) first.update(chunk);
    // Not received yet (not stored): nothing counts.
    expect(hashes.itemHash('u', [a.recorded])).toBeUndefined();
    // The bytes given are not hashed: the feed's hash is the one kept.
    hashes.received('u', 1, a.recorded, Buffer.alloc(0), first);
    const second = hashes.begin('u', 2)!;
    second.update(b.bytes);
    hashes.received('u', 2, b.recorded, Buffer.alloc(0), second);
    expect(hashes.itemHash('u', [a.recorded, b.recorded])).toBe(hex(Buffer.concat([a.bytes, b.bytes])));
  });

  it('leaves the session as it was for a feed never received, and gives none to a part that would not continue it', () => {
    const hashes = new UploadHashes();
    hashes.received('u', 1, a.recorded, a.bytes);
    // Part 2 cut short: fed, never stored.
    hashes.begin('u', 2)!.update(b.bytes.subarray(0, 2));
    expect(hashes.itemHash('u', [a.recorded])).toBe(a.recorded.sha256);
    // Part 3 before 2, and part 2 of a session never fed: nothing to continue from.
    expect(hashes.begin('u', 3)).toBeUndefined();
    expect(hashes.begin('v', 2)).toBeUndefined();
    hashes.received('u', 2, b.recorded, b.bytes);
    expect(hashes.itemHash('u', [a.recorded, b.recorded])).toBe(hex(Buffer.concat([a.bytes, b.bytes])));
  });

  it('hashes the bytes when the session moved on after the feed began, or the feed is another part’s', () => {
    const hashes = new UploadHashes();
    const other = part('FIRST ');
    hashes.received('u', 1, a.recorded, a.bytes);
    const stale = hashes.begin('u', 2)!;
    stale.update(b.bytes);
    // Part 1 replaced meanwhile (received while part 2 arrived): the feed continued the old part 1.
    hashes.received('u', 1, other.recorded, other.bytes);
    hashes.received('u', 2, b.recorded, b.bytes, stale);
    expect(hashes.itemHash('u', [other.recorded, b.recorded])).toBe(hex(Buffer.concat([other.bytes, b.bytes])));

    hashes.received('v', 1, a.recorded, a.bytes);
    const elsewhere = hashes.begin('w', 1)!;
    elsewhere.update(other.bytes);
    hashes.received('v', 2, b.recorded, b.bytes, elsewhere);
    expect(hashes.itemHash('v', [a.recorded, b.recorded])).toBe(hex(Buffer.concat([a.bytes, b.bytes])));
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
