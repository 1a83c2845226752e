import type { Limit } from '../rate-limit/index.ts';

export const DEVICE_LOGIN = {
  /** How long a device code and its user code stay valid. */
  expiresInSeconds: 600,
  /** Minimum seconds between two polls of the token endpoint. */
  intervalSeconds: 5,
  /** User-code guesses (lookups and decisions) per signed-in account. */
  codeEntryLimit: { name: 'device-code-entry', max: 20, windowSeconds: 600 } satisfies Limit,
};
