import { randomBase62, sha256 } from '../security/index.ts';

// App tokens given to MCP hosts: 192 random bits each, stored as SHA-256 hashes only.
export const ACCESS_PREFIX = 'svc-ot-';
export const REFRESH_PREFIX = 'svc-or-';
const CODE_PREFIX = 'svc-oc-';
const SHAPE = /^svc-o[tcr]-[0-9A-Za-z]{33}$/;

export const ACCESS_TTL_MS = 3600_000;
export const REFRESH_TTL_MS = 30 * 24 * 3600_000;
/** An authorization code is redeemed by the host right after the redirect. */
export const CODE_TTL_MS = 60_000;

export function newSecret(kind: 'access' | 'refresh' | 'code'): { plaintext: string; hash: Buffer } {
  const prefix = kind === 'access' ? ACCESS_PREFIX : kind === 'refresh' ? REFRESH_PREFIX : CODE_PREFIX;
  const plaintext = `${prefix}${randomBase62(24)}`;
  return { plaintext, hash: sha256(plaintext) };
}

export const isSecret = (value: string, prefix: string) => value.startsWith(prefix) && SHAPE.test(value);
