import { randomBase62, sha256 } from '../security/index.ts';

/** 192 random bits; the link is `{production_base}/s/<token>`. */
const TOKEN_BYTES = 24;
export const LINK_PREFIX_LENGTH = 8;
export const LINK_TOKEN_PATTERN = /^[0-9A-Za-z]{33}$/;

export function newLinkToken(): { token: string; hash: Buffer; prefix: string } {
  const token = randomBase62(TOKEN_BYTES);
  return { token, hash: sha256(token), prefix: token.slice(0, LINK_PREFIX_LENGTH) };
}
