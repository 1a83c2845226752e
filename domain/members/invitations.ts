import type { Clock } from '../deps.ts';
import { randomBase62, sha256 } from '../security/random.ts';

/** How long an invitation link lets a pending account set its first password. */
export const INVITATION_DAYS = 30;
export const INVITATION_PATTERN = /^[0-9A-Za-z]{33}$/;

/** A link to the web sign-in page that sets a pending account's password; only its hash is stored. */
export function newInvitation(clock: Clock, baseUrl: string): { url: string; hash: Buffer; expiresAt: Date } {
  const token = randomBase62(24);
  return {
    url: `${baseUrl}/signin?invitation=${token}`,
    hash: sha256(token),
    expiresAt: new Date(clock.now().getTime() + INVITATION_DAYS * 24 * 60 * 60 * 1000),
  };
}
