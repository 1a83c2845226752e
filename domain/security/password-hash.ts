import { randomBytes, type ScryptOptions, scrypt as scryptCb } from 'node:crypto';
import { equalHashes } from './random.ts';

// scrypt at OWASP's parameters (N=2^17, r=8, p=1). The parameters are stored
// in each hash, so raising them later only affects new hashes.

export interface ScryptParams {
  logN: number;
  r: number;
  p: number;
}

export const PRODUCTION_SCRYPT: ScryptParams = { logN: 17, r: 8, p: 1 };
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** params.logN, r: params.r, p: params.p, maxmem: 256 * 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$<logN>$<r>$<p>$<salt b64>$<hash b64>` */
export async function hashPassword(password: string, params: ScryptParams = PRODUCTION_SCRYPT): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, params);
  return ['scrypt', params.logN, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const key = await scrypt(password, Buffer.from(salt, 'base64'), { logN: Number(logN), r: Number(r), p: Number(p) });
  return equalHashes(key, Buffer.from(hash, 'base64'));
}
