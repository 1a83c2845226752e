import { randomInt } from 'node:crypto';

// Two groups of four letters from an alphabet without vowels (no words) and
// without look-alikes, as the spec prescribes. 20^8 ≈ 2.6e10 codes.
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_PATTERN = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

/** Stored form: eight letters, no hyphen. */
export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

export function formatUserCode(stored: string): string {
  return `${stored.slice(0, 4)}-${stored.slice(4)}`;
}

/** What a person typed, ignoring case, spaces and hyphens; undefined when it cannot be a code. */
export function normalizeUserCode(typed: string): string | undefined {
  const letters = typed.toUpperCase().replace(/[\s-]/g, '');
  return letters.length === 8 && [...letters].every((c) => USER_CODE_ALPHABET.includes(c)) ? letters : undefined;
}
