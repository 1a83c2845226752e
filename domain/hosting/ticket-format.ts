import { randomBase62, sha256, sha256Hex } from '../security/index.ts';

/** `svc-at-` + 33 base62 characters (192 random bits). */
export const TICKET_PREFIX = 'svc-at-';
const TICKET_PATTERN = /^svc-at-[0-9A-Za-z]{33}$/;

/** Spec Limits: an app ticket is valid 8 hours and renewable up to 24 hours after it expired. */
export const TICKET_TTL_MS = 8 * 3600_000;
export const TICKET_RENEWAL_GRACE_MS = 24 * 3600_000;

export function newTicket(): { plaintext: string; hash: Buffer } {
  const plaintext = `${TICKET_PREFIX}${randomBase62(24)}`;
  return { plaintext, hash: sha256(plaintext) };
}

export const isTicket = (value: string) => TICKET_PATTERN.test(value);
/**
 * A renewed ticket keeps working this much longer, for the page's requests already sent with it
 * (the SDK swaps tickets when the renewal answers); then only the new one does.
 */
export const TICKET_RENEWAL_OVERLAP_MS = 60_000;

/**
 * The secret in the address of a ticketed page's files (`_v/<digest16>-<secret>/`): derived from
 * the ticket the page's cookie holds, so only that page (and whoever holds the ticket) knows it,
 * and another site cannot name a file the cookie is sent to and admitted for. 64 bits: guessed
 * only online, one request of the visitor's browser per guess.
 */
export const filesSecretOf = (ticket: string) => sha256Hex(`svc-app-files\0${ticket}`).slice(0, 16);
