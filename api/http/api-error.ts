// The service's error codes: the spec's list, plus a few platform codes for
// situations the spec leaves open (unknown route, wrong method, generic
// conflict, timeouts, outages). README documents the statuses.

export const ERROR_CODES = {
  // spec
  unauthorized: 'Missing or invalid credential.',
  not_logged_in: 'No credential was found.',
  invalid_session: 'The web session is missing or no longer valid.',
  forbidden: 'The credential lacks the needed role or company.',
  rate_limited: 'Too many requests; retry later.',
  quota_exhausted: 'A limit of this app or budget is used up.',
  malformed_json: 'The request body is not valid JSON.',
  invalid_payload: 'The request body does not match its schema.',
  payload_too_large: 'The request body is too large.',
  invalid_path: 'A path value is not valid.',
  authorization_pending: 'The device login is not approved yet.',
  access_denied: 'The device login was denied.',
  device_code_expired: 'The device or user code has expired.',
  invalid_credentials: 'Wrong login or password.',
  email_verification_required: 'The email address must be verified first.',
  password_change_required: 'The temporary password must be changed on the web first.',
  company_required: 'This account acts for several companies; pass cellId.',
  agent_key_not_found: 'No such key.',
  app_not_found: 'No such app.',
  bundle_invalid: 'The bundle failed validation.',
  version_conflict: 'That version number already holds different content.',
  branch_required: 'Agent authors must write to a branch.',
  stream_in_use: 'The stream is still used as a data source.',
  webhook_failed: 'The writeback webhook failed.',
  rev_mismatch: 'The revision is stale.',
  user_not_found: 'No such user.',
  organization_not_found: 'No such organization.',
  // platform
  not_found: 'No such route.',
  method_not_allowed: 'This route does not accept that method.',
  conflict: 'The request conflicts with existing data.',
  timeout: 'The operation took too long.',
  service_unavailable: 'The service is temporarily unavailable.',
  internal_error: 'An unexpected error occurred.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  /** Extra response headers, e.g. Retry-After or Allow. */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    status: number,
    details?: Record<string, unknown>,
    message: string = ERROR_CODES[code],
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.code = code;
    this.status = status;
    this.details = details;
    this.headers = headers;
  }
}
