// The one table of error codes: each code has exactly one HTTP status and a short meaning.
// The spec's codes come first; the platform codes cover what the spec leaves open (unknown
// route, wrong method, a generic conflict, timeouts, outages). Shared with the CLI (exit codes)
// and served in the OpenAPI document; docs/api/errors.md prints the same table (`npm run docs`; a
// test keeps them equal). Add a code here only together with the code that raises it.

export const ERRORS = {
  // spec
  unauthorized: { status: 401, meaning: 'Missing or invalid credential.' },
  not_logged_in: { status: 401, meaning: 'No credential was found; raised by the SDK and the CLI before any request is sent.' },
  invalid_session: { status: 401, meaning: 'The web session is missing or no longer valid.' },
  forbidden: { status: 403, meaning: 'The credential lacks the needed role or company.' },
  rate_limited: { status: 429, meaning: 'Too many requests; retry after the Retry-After header.' },
  quota_exhausted: { status: 429, meaning: 'An app limit or budget is used up until its period ends (Retry-After; details.resetsAt).' },
  malformed_json: { status: 400, meaning: 'The request body is not valid JSON.' },
  invalid_payload: {
    status: 400,
    meaning:
      'The request does not match its schema; details.problems names each path (the first 100; details.omittedProblems counts the rest).',
  },
  payload_too_large: { status: 413, meaning: 'The request body is too large.' },
  invalid_path: { status: 400, meaning: 'A path value is not valid.' },
  authorization_pending: { status: 400, meaning: 'The device login is not approved yet.' },
  access_denied: { status: 403, meaning: 'The device login was denied.' },
  device_code_expired: { status: 400, meaning: 'The device or user code has expired.' },
  invalid_credentials: { status: 401, meaning: 'Wrong login or password.' },
  email_verification_required: { status: 403, meaning: 'The email address must be verified first.' },
  password_change_required: { status: 403, meaning: 'The temporary password must be changed on the web first.' },
  company_required: { status: 400, meaning: 'This account acts for several companies; pass cellId (details.companies).' },
  agent_key_not_found: { status: 404, meaning: 'No such key (the spec’s code for a key to revoke).' },
  app_not_found: { status: 404, meaning: 'No such app.' },
  bundle_invalid: {
    status: 422,
    meaning: 'The bundle failed validation; details.problems lists the first 100 problems, details.omittedProblems counts any others.',
  },
  version_conflict: { status: 409, meaning: 'That version number already holds different content.' },
  user_not_found: { status: 404, meaning: 'No such account.' },
  organization_not_found: { status: 404, meaning: 'No such company.' },
  principal_not_found: { status: 404, meaning: 'No such account, company or group to share with.' },
  group_not_found: { status: 404, meaning: 'No such group, or not one of the caller’s companies.' },
  group_name_exists: { status: 409, meaning: 'The company already has a group of that name (names compare case-insensitively).' },
  marking_category_not_found: { status: 404, meaning: 'No such marking category, or not one of the caller’s companies.' },
  marking_not_found: { status: 404, meaning: 'No such marking, or not one of the caller’s (or the resource’s) company.' },
  marking_name_exists: { status: 409, meaning: 'The category already has a marking of that name (names compare case-insensitively).' },
  last_admin_protected: {
    status: 409,
    meaning: 'A marking keeps at least one ADMINISTER role assignment; this change would remove the last.',
  },
  attributes_not_editable: {
    status: 422,
    meaning:
      'A user’s svc: attributes come from their account and licenses (username, email, companies, roles) and are never edited; a company’s custom attributes are set with PUT /api/v1/admin/users/{id}/attributes.',
  },
  invalid_group_membership_expiration: {
    status: 422,
    meaning: 'The membership expiration is in the past, or beyond what the group’s membership expiration policy allows.',
  },
  ontology_not_found: { status: 404, meaning: 'No such ontology, or not visible to the caller.' },
  object_type_not_found: { status: 404, meaning: 'No such object type, or not visible to the caller.' },
  object_not_found: { status: 404, meaning: 'No such object.' },
  link_type_not_found: { status: 404, meaning: 'No such link type.' },
  object_set_not_found: { status: 404, meaning: 'No such object set (temporary object sets are kept 24 hours).' },
  action_type_not_found: { status: 404, meaning: 'No such action type, or not visible to the caller.' },
  definition_invalid: {
    status: 422,
    meaning: 'The definition is not valid; details.problems name each path with a Foundry-like errorName.',
  },
  definition_breaking_change: {
    status: 409,
    meaning: 'The change would break stored objects; details.properties lists each property and how many objects block it.',
  },
  query_invalid: {
    status: 400,
    meaning: 'The where clause, orderBy, aggregation or SQL query is not valid; details.errorName says how (e.g. PropertiesNotFilterable).',
  },
  sql_query_failed: {
    status: 422,
    meaning:
      'The SQL query was valid but failed while running (e.g. division by zero, a result over the byte budget); details.sqlState has PostgreSQL’s code when it raised it.',
  },
  branch_required: { status: 409, meaning: 'Agent authors cannot write the main definition: use a branch.' },
  stream_in_use: {
    status: 409,
    meaning: 'The stream is still a data source of object types (details.objectTypes, by apiName): remove those bindings first.',
  },
  rev_mismatch: { status: 409, meaning: 'The object changed since it was read (ifRev); details.currentRev has its revision now.' },
  action_invalid: {
    status: 422,
    meaning:
      'The action run is not valid (an unknown parameter, or an invalid request of a batch: details.index and details.validation); nothing was applied.',
  },
  branch_not_found: { status: 404, meaning: 'No such branch of the definitions (or of a media set), or it was deleted.' },
  proposal_not_found: { status: 404, meaning: 'No such proposal.' },
  media_set_not_found: { status: 404, meaning: 'No such media set, or the caller has no role on it.' },
  media_item_not_found: { status: 404, meaning: 'No such media item (on that branch), or it is not committed yet.' },
  invalid_media_item_schema: {
    status: 400,
    meaning: 'The item’s Content-Type is not admitted by the media set’s schema or its allowed MIME types (details.allowed).',
  },
  missing_media_item_path: { status: 400, meaning: 'The item needs a path (query mediaItemPath).' },
  media_item_path_invalid: {
    status: 400,
    meaning: 'The item path is not a safe relative path (details.problems: `..`, control characters, hidden names…).',
  },
  media_set_open_transaction_already_exists: {
    status: 409,
    meaning: 'The branch already has an open transaction (details.transactionId): commit or abort it first.',
  },
  conflicting_media_set_identifiers: { status: 400, meaning: 'Name a branch by one of branchName, branchRid and viewRid only.' },
  property_not_found: {
    status: 404,
    meaning: 'The object type has no such property of the kind the route takes (a media property: type mediaReference).',
  },
  media_upload_not_found: { status: 404, meaning: 'No such upload session for this media property.' },
  media_upload_incomplete: {
    status: 409,
    meaning:
      'The parts do not make the declared item: a part is missing (details.missingParts) or their sizes do not add up to the declared size.',
  },
  media_upload_destination_not_configured: {
    status: 422,
    meaning: 'The item is larger than what the database store keeps (details.limitBytes) and no S3 store is configured (SVC_BLOB_STORE).',
  },
  media_item_rid_already_exists: {
    status: 409,
    meaning: 'A media item with the rid given (query mediaItemRid) already exists: give another rid, or none for a new one.',
  },
  transformation_unavailable: {
    status: 422,
    meaning:
      'This service has no such transformation for the item (details.transformationType, details.mimeType): image transformations of PNG, JPEG, WebP, GIF, AVIF and TIFF items only.',
  },
  transformation_input_too_large: {
    status: 413,
    meaning:
      'The item is too large to transform: more bytes (details.limitBytes) or pixels (details.limitPixels) than a transformation reads.',
  },
  transformation_not_found: { status: 404, meaning: 'No such transformation job for this media item.' },
  transformed_media_item_not_found: {
    status: 404,
    meaning: 'The transformation job produced no item: it failed (details.failure says why; the input is not a readable image).',
  },
  attachment_not_found: {
    status: 404,
    meaning:
      'No such attachment for the caller: never uploaded, another company’s, removed (unused an hour after its upload), or not the caller’s to read by rid (read it through the object).',
  },
  attachment_size_exceeded_limit: {
    status: 413,
    meaning: 'The attachment is larger than 200 MB (details.limitBytes).',
  },
  improvement_limit_reached: {
    status: 409,
    meaning:
      'The app already holds its most improvements of that scope (40 company-wide; 20 personal per person): delete one, or compile the company-wide ones into a version. details.scope, details.limit.',
  },
  improvement_not_found: { status: 404, meaning: 'No such improvement.' },
  camera_unreachable: {
    status: 502,
    meaning:
      'The camera could not be reached or answered wrongly (details.cause: refused, dns, address_refused, http_status, not_jpeg, not_mjpeg, dropped, too_large, redirect, credential_rejected; details.retryAt while attempts are paused).',
  },
  camera_timeout: {
    status: 504,
    meaning: 'The camera did not answer in time (details.cause: connect, no answer to the request; stalled, no next byte of an answer).',
  },
  workshop_module_not_found: { status: 404, meaning: 'No such application module, or the caller has no role on it.' },
  workshop_version_not_found: {
    status: 404,
    meaning: 'No such version of the module, or not one the caller may open (viewers open the published version only).',
  },
  // platform
  connection_not_found: { status: 404, meaning: 'No such data connection of this company.' },
  connection_name_exists: { status: 409, meaning: 'The company already has a data connection or sync of that name.' },
  connection_address_refused: {
    status: 422,
    meaning:
      'The source’s host is on a loopback, private, link-local or otherwise non-public address, which sources may not reach (SVC_CONNECTIVITY_PRIVATE_NETWORKS); details.host.',
  },
  connection_in_use: {
    status: 409,
    meaning:
      'Syncs still read from this connection, or action types call it as their writeback webhook (details.syncs, details.actionTypes): change or delete them first.',
  },
  sync_not_found: { status: 404, meaning: 'No such sync of this company.' },
  build_not_found: { status: 404, meaning: 'No such build of this company.' },
  build_finished: { status: 409, meaning: 'The build has finished already (details.status): there is nothing to cancel.' },
  object_type_read_only: {
    status: 409,
    meaning: 'The object type is a `platform.*` type of the platform data source: only its sync writes it (details.objectType).',
  },
  webhook_failed: {
    status: 502,
    meaning:
      'The action’s writeback webhook rejected the call, timed out, throttled it or could not be reached: the action had no effect (details.reason, details.status).',
  },
  database_access_unavailable: {
    status: 409,
    meaning:
      'No direct PostgreSQL login or database copy is offered: ontology SQL (POST /api/v1/sqlQueries/executeOntology) reads the live object types; details.reason.',
  },
  automation_not_found: { status: 404, meaning: 'No such automation of this company.' },
  automation_name_exists: { status: 409, meaning: 'The company already has an automation of that name.' },
  workshop_page_not_found: { status: 404, meaning: 'The module version has no page with that id.' },
  auto_refresh_not_enabled: { status: 409, meaning: 'Auto-refresh is not enabled for that page of the module (autoRefresh.enabled).' },
  media_set_transaction_not_found: { status: 404, meaning: 'No such transaction of this media set.' },
  camera_not_found: { status: 404, meaning: 'No such camera in the company (for an app ticket: none its manifest lists).' },
  world_asset_not_found: { status: 404, meaning: 'No such world-model asset in the company.' },
  world_generation_not_found: {
    status: 404,
    meaning: 'No such world generation, or (for an app ticket) one another app asked for.',
  },
  camera_name_exists: { status: 409, meaning: 'The company already has a camera of that name.' },
  stream_not_found: {
    status: 404,
    meaning: 'No such data stream in the company (for an app ticket: none its manifest lists in `streams`).',
  },
  stream_name_exists: { status: 409, meaning: 'The company already has a data stream of that name.' },
  stream_binding_not_found: { status: 404, meaning: 'The stream is not a data source of that object type.' },
  model_not_found: {
    status: 404,
    meaning: 'No such model in the catalog (GET /api/v1/models), or, for an app ticket, the app’s manifest does not list it in `models`.',
  },
  image_undecodable: { status: 400, meaning: 'The body is not an image the service decodes (JPEG, PNG, WebP, GIF, AVIF, TIFF).' },
  camera_busy: {
    status: 429,
    meaning: 'The camera already has its maxViewers live viewers (details.maxViewers); retry when one leaves (Retry-After).',
  },
  not_found: { status: 404, meaning: 'No such route.' },
  method_not_allowed: { status: 405, meaning: 'This route does not accept that method.' },
  conflict: { status: 409, meaning: 'The request conflicts with the current state.' },
  payload_undecodable: {
    status: 422,
    meaning:
      'A Temporal payload does not open: its key is not configured, or not the one it was sealed with (the message names the key id).',
  },
  tier_unsupported: { status: 422, meaning: 'This resource kind has no anonymous read entry: the internet tier does not apply.' },
  timeout: { status: 503, meaning: 'The operation took too long; retry.' },
  service_unavailable: { status: 503, meaning: 'The service is temporarily unavailable; retry.' },
  internal_error: { status: 500, meaning: 'An unexpected error occurred.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERRORS;

export const ERROR_CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];
