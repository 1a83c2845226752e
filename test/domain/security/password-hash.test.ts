import { describe, expect, it } from 'vitest';
import { hashPassword, PRODUCTION_SCRYPT, verifyPassword } from '../../../domain/security/password-hash.ts';

describe('password hashing', () => {
  it('uses scrypt at N=2^17, r=8, p=1 by default and records the parameters in the hash', async () => {
    expect(PRODUCTION_SCRYPT).toEqual({ logN: 17, r: 8, p: 1 });
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$17\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsf', hash)).toBe(false);
  });

  it('salts every hash and verifies with the parameters stored in it', async () => {
    const cheap = { logN: 10, r: 8, p: 1 };
    const a = await hashPassword('same', cheap);
    const b = await hashPassword('same', cheap);
    expect(a).not.toBe(b);
    expect(a.startsWith('scrypt$10$8$1$')).toBe(true);
    expect(await verifyPassword('same', a)).toBe(true);
    expect(await verifyPassword('same', 'bcrypt$whatever')).toBe(false);
  });

  it('treats Unicode-equivalent spellings of a password alike (NFKC)', async () => {
    const hash = await hashPassword('ﬁsh-café', { logN: 10, r: 8, p: 1 });
    expect(await verifyPassword('fish-cafe\u0301', hash)).toBe(true);
  });
});
