// Exit codes (spec "Errors"): 0 success, 1 failure, 2 parameter or validation error, 3 not logged in.
export const EXIT = { ok: 0, failure: 1, usage: 2, notLoggedIn: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI reports and exits with; `code`, `requestId` and `details` come from the server when it answered. */
export class CliError extends Error {
  override name = 'CliError';
  readonly exitCode: ExitCode;
  readonly extra: { code?: string; requestId?: string; status?: number; details?: unknown };

  constructor(message: string, exitCode: ExitCode, extra: CliError['extra'] = {}) {
    super(message);
    this.exitCode = exitCode;
    this.extra = extra;
  }
}

/** Server codes that mean the request itself was wrong (exit 2) or the credential is gone (exit 3). */
const USAGE_CODES = new Set([
  'invalid_payload',
  'invalid_path',
  'bundle_invalid',
  'malformed_json',
  'payload_too_large',
  'company_required',
]);
const NOT_LOGGED_IN_CODES = new Set(['unauthorized', 'invalid_session']);

export function exitCodeOf(serverCode: string): ExitCode {
  if (NOT_LOGGED_IN_CODES.has(serverCode)) return EXIT.notLoggedIn;
  if (USAGE_CODES.has(serverCode)) return EXIT.usage;
  return EXIT.failure;
}

export const notLoggedIn = () =>
  new CliError('Not logged in: run `svc login`, or set SVC_API_KEY (or pass --api-key).', EXIT.notLoggedIn, { code: 'not_logged_in' });

/** Logged in, but to other services than the one the command is for. */
export const loggedInElsewhere = (loggedInTo: string[], baseUrl: string) =>
  new CliError(`You are logged in to ${loggedInTo.join(', ')}, not ${baseUrl}: run svc login --base-url ${baseUrl}`, EXIT.notLoggedIn, {
    code: 'not_logged_in',
  });
