import { describe, expect, it } from 'vitest';
import { createSecretBox, type SealedSecret } from '../../../domain/security/index.ts';

// The one sealer of every secret svc keeps: rotation by key list, the record's id bound in, any
// change to what is stored detected.

const old = { id: 'old', key: Buffer.alloc(32, 1) };
const current = { id: 'new', key: Buffer.alloc(32, 2) };
const flipped = (secret: SealedSecret, at: number): SealedSecret => {
  const sealed = Buffer.from(secret.sealed);
  sealed[at]! ^= 0x01;
  return { ...secret, sealed };
};

describe('secret box', () => {
  it('opens what an earlier key sealed once a new key is put first, and seals with the new one', () => {
    const sealed = createSecretBox([old]).seal('postgres://u:pw@h/db', 'dcn_a');
    expect(sealed.keyId).toBe('old');
    const rotated = createSecretBox([current, old]);
    expect(rotated.open(sealed, 'dcn_a')).toBe('postgres://u:pw@h/db');
    const resealed = rotated.seal('postgres://u:pw@h/db', 'dcn_a');
    expect(resealed.keyId).toBe('new');
    expect(createSecretBox([current]).open(resealed, 'dcn_a')).toBe('postgres://u:pw@h/db');
  });

  it('names the setting when the key a secret was sealed with is gone', () => {
    const sealed = createSecretBox([old]).seal('x', 'cam_a');
    expect(() => createSecretBox([current]).open(sealed, 'cam_a')).toThrow(/key old, which is not among SVC_SECRET_KEYS/);
  });

  it('does not open a secret for another record than the one it was sealed for', () => {
    const box = createSecretBox([current]);
    const sealed = box.seal('{"username":"admin","password":"pw"}', 'cam_a');
    expect(box.open(sealed, 'cam_a')).toBe('{"username":"admin","password":"pw"}');
    expect(() => box.open(sealed, 'cam_b')).toThrow();
    expect(() => box.open(sealed, 'dcn_a')).toThrow();
  });

  it('detects a changed IV, ciphertext, tag or key id', () => {
    const box = createSecretBox([current, { id: 'twin', key: current.key }]);
    const sealed = box.seal('a secret of some length', 'dcn_a');
    expect(box.open(sealed, 'dcn_a')).toBe('a secret of some length');
    for (const at of [0, 12, sealed.sealed.length - 1]) expect(() => box.open(flipped(sealed, at), 'dcn_a')).toThrow();
    expect(() => box.open({ ...sealed, sealed: sealed.sealed.subarray(0, sealed.sealed.length - 1) }, 'dcn_a')).toThrow();
    // The same key under another id: the id is authenticated too.
    expect(() => box.open({ ...sealed, keyId: 'twin' }, 'dcn_a')).toThrow();
  });

  it('never shows the plaintext and seals the same value differently each time', () => {
    const box = createSecretBox([current]);
    const a = box.seal('pw@host', 'dcn_a');
    const b = box.seal('pw@host', 'dcn_a');
    expect(a.sealed.toString('latin1')).not.toContain('pw@host');
    expect(a.sealed.equals(b.sealed)).toBe(false);
  });

  it('needs a key', () => {
    expect(() => createSecretBox([])).toThrow(/at least one key/);
  });
});
