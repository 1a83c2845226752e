import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../api/deps.ts';
import { SWAGGER_UI_VERSION } from '../../api/web/api-reference.ts';
import { pagesRouter } from '../../api/web/pages.ts';
import {
  type CallerKind,
  credentialTypesOf,
  legacyEvolveIds,
  PAGE_ACCESS,
  ROUTE_ACCESS,
  type RouteAccess,
} from '../../domain/policy/index.ts';
import { bundle } from '../support/bundles.ts';
import { snapshotService } from '../support/db-snapshot.ts';
import { resetRateLimits } from '../support/identity.ts';
import { SALES } from '../support/ontology.ts';
import { ACTIONS } from '../support/ontology-actions.ts';
import { APP, type Caller, COMPANY_A, type PrincipalFixture, seedPrincipals, type Targets } from '../support/principals.ts';
import { initializeBody } from '../support/provisioning.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The route × principal matrix (issue 27): every operation of the served OpenAPI document, called
// by one credential of every caller kind plus two cross-scope callers (B's developer key, a ticket
// of another app), each answer checked against the access table `ROUTE_ACCESS`. Writes are dry
// runs, so the matrix changes nothing. A route added without a table entry fails the first test.

let svc: TestService;
let fixture: PrincipalFixture;
type Operation = { operationId: string; method: string; path: string };
let operations: Operation[];

beforeAll(async () => {
  // No worker here: a control-plane start answers without waiting for its run.
  svc = await startTestService({ env: { SVC_RUN_START_WAIT_MS: '0' } });
  fixture = await seedPrincipals(svc);
  const res = await svc.call('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  operations = Object.entries(res.body.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ operationId: op.operationId, method: method.toUpperCase(), path })),
  );
});
afterAll(() => svc?.close());

interface MatrixRequest {
  /** Values of path placeholders whose default (PARAMS) does not fit this route. */
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  /** The answer is an event stream when admitted: only its status is read. */
  stream?: true;
}

const APP_RID = `ri.workshop.svc.app.${APP.namespace}.${APP.slug}`;
const APP_QUERY = { namespace: APP.namespace, slug: APP.slug };
const CUSTOMERS = { type: 'base', objectType: 'sales.Customer' };
const MODULE_DEFINITION = {
  title: 'Matrix',
  pages: [{ id: 'main', title: 'Main', widgets: [{ id: 'note', type: 'markdown', text: 'hi' }] }],
};

/** Path placeholders that name the same thing on every route: things of company A that exist. */
const PARAMS = (t: Targets): Record<string, string> => ({
  namespace: COMPANY_A,
  slug: APP.slug,
  cellId: COMPANY_A,
  cell: COMPANY_A,
  ontology: COMPANY_A,
  ns: COMPANY_A,
  rid: APP_RID,
  channel: 'production',
  name: 'run',
  objectType: 'sales.Customer',
  primaryKey: 'c1',
  linkType: 'orders',
  linkedPrimaryKey: '1',
  action: 'sales.addCustomer',
  objectSetRid: t.objectSetRid,
  branch: t.branch,
  proposalId: t.proposalId,
  userCode: t.userCode,
  linkId: t.resourceLinkId,
  accountId: t.pendingAccountId,
  groupId: t.groupId,
  categoryId: t.categoryId,
  markingId: t.markingId,
  mediaSetRid: t.mediaSetRid,
  mediaItemRid: t.mediaItemRid,
  transactionId: t.mediaTransactionId,
  // No such job: the gate is what is asked here (jobs are the media tests').
  transformationJobId: '0'.repeat(64),
  // No media property nor session: the gate is what is asked here (sessions are the media tests').
  property: 'photo',
  uploadId: '00000000-0000-4000-8000-000000000000',
  partNumber: '1',
  // No such attachment: the gate is what is asked here (attachments are the attachment tests').
  attachmentRid: 'ri.attachments.main.attachment.00000000-0000-4000-8000-000000000000',
  // No such key: revokeKey's gate is what is asked here (who may revoke whose key is the keys tests').
  keyId: 'key_0000000000000000',
  // No such connection, sync or build: the gate is what is asked (the connectivity tests have the rest).
  connectionId: 'dcn_0000000000000000',
  syncId: 'dsy_0000000000000000',
  buildId: 'bld_0000000000000000',
  // No such automation: the gate is what is asked (the automate tests have the rest).
  automationId: 'aut_0000000000000000',
});

const NO_PROPOSAL = 'evp_0000000000000000';

/**
 * Evolve's requests, and the same on each legacy path of the operation: `improve/…` as is, the
 * per-app `evolve/{namespace}/{slug}/…` with the app in the path instead of the query or body.
 */
function withLegacyEvolvePaths(requests: Record<string, (t: Targets) => MatrixRequest>): Record<string, (t: Targets) => MatrixRequest> {
  return Object.fromEntries(
    Object.entries(requests).flatMap(([id, request]) => {
      const [improve, bySlug] = legacyEvolveIds(id) as [string, string];
      const perApp = (t: Targets): MatrixRequest => {
        const { query, body, ...rest } = request(t);
        const { slug: _q, ...inQuery } = query ?? {};
        const { slug: _b, ...inBody } = (body ?? {}) as Record<string, unknown>;
        return { ...rest, ...(query ? { query: inQuery } : {}), ...(body ? { body: inBody } : {}) };
      };
      return [
        [id, request],
        [improve, request],
        [bySlug, perApp],
      ];
    }),
  );
}

/**
 * What each operation is sent beyond the defaults: a request valid enough to pass validation, so a
 * caller of another company reaches the check that must refuse it. Writes get `{}` unless listed.
 */
const REQUESTS: Record<string, (t: Targets) => MatrixRequest> = {
  issueAgentKey: () => ({ body: { agentId: 'matrix-bot' } }),
  revokeAgentKey: (t) => ({ params: { keyId: t.spareAgentKeyId } }),
  decideDeviceCode: (t) => ({ body: { userCode: t.userCode, decision: 'deny' } }),
  adminCreateOrganization: () => ({ body: { cellId: 'cell-matrix-new', name: 'New' } }),
  adminGetOrganization: () => ({ params: { rid: COMPANY_A } }),
  adminGetUser: (t) => ({ params: { id: t.spareAccountId } }),
  adminDecodeTemporalPayloads: () => ({ body: { payloads: [] } }),
  adminUpdateUser: (t) => ({ params: { id: t.spareAccountId }, body: { status: 'disabled' } }),
  adminSetUserAttributes: (t) => ({
    params: { id: t.spareAccountId },
    body: { organization: COMPANY_A, attributes: { region: ['north'] } },
  }),
  adminPutLicense: (t) => ({ params: { id: t.spareAccountId }, body: { role: 'developer' } }),
  adminDeleteLicense: (t) => ({ params: { id: t.spareAccountId } }),
  adminListUserKeys: (t) => ({ params: { id: t.spareAccountId } }),
  adminRevokeUserKeys: (t) => ({ params: { id: t.spareAccountId } }),
  adminSetSeatLimit: () => ({ params: { rid: COMPANY_A }, body: { limit: 50 } }),
  adminCreateGroup: () => ({ body: { name: 'Matrix new group' } }),
  adminAddGroupMembers: (t) => ({ body: { principalIds: [t.spareAccountId] } }),
  adminRemoveGroupMembers: (t) => ({ body: { principalIds: [t.spareAccountId] } }),
  adminCreateMarkingCategory: () => ({ body: { name: 'Matrix new category', categoryType: 'DISJUNCTIVE' } }),
  adminCreateMarking: (t) => ({
    body: {
      categoryId: t.categoryId,
      name: 'Matrix new marking',
      initialRoleAssignments: [{ principalType: 'USER', principalId: t.spareAccountId, role: 'ADMINISTER' }],
    },
  }),
  adminAddMarkingRoleAssignments: (t) => ({
    body: { roleAssignments: [{ principalType: 'USER', principalId: t.spareAccountId, role: 'USE' }] },
  }),
  adminRemoveMarkingRoleAssignments: (t) => ({
    body: { roleAssignments: [{ principalType: 'GROUP', principalId: t.groupId, role: 'USE' }] },
  }),
  addResourceMarkings: (t) => ({ body: { markingIds: [t.markingId] } }),
  removeResourceMarkings: (t) => ({ body: { markingIds: [t.markingId] } }),
  findStoredFiles: () => ({ query: { sha256: '0'.repeat(64) } }),
  uploadAppVersion: () => ({ body: bundle(APP.slug, '2.0.0') }),
  callAppMcp: () => ({
    body: { jsonrpc: '2.0', id: 1, method: 'ping' },
    headers: { accept: 'application/json, text/event-stream' },
  }),
  describeOAuthAuthorization: (t) => ({ query: t.authorization }),
  decideOAuthAuthorization: (t) => ({ body: { ...t.authorization, decision: 'deny' } }),
  controlPlaneInitializeCompany: () => ({ body: initializeBody('cell-matrix-init', '/srv/cell-matrix-init') }),
  listShares: () => ({ query: APP_QUERY }),
  createShare: () => ({ body: { ...APP_QUERY, audience: 'company' } }),
  // By the share id alone: the share names its app, and the policy decides on that app.
  revokeShare: (t) => ({ params: { id: t.shareId } }),
  importMembers: () => ({ body: [{ email: 'matrix-import@example.com' }] }),
  addResourceRole: () => ({ body: { principal: 'cell-globex', role: 'viewer' } }),
  removeResourceRole: () => ({ body: { principal: 'cell-globex' } }),
  setResourceTier: () => ({ body: { tier: 'public' } }),
  redeemResourceLink: () => ({ body: { token: '0'.repeat(33) } }),
  searchPrincipals: () => ({ query: { q: 'gus' } }),
  recordLogEvents: () => ({ body: { slug: APP.slug, events: [{ kind: 'usage', name: 'matrix' }] } }),
  listLogEvents: () => ({ query: { slug: APP.slug } }),
  followLogEvents: () => ({ query: { slug: APP.slug }, stream: true }),
  setFeedbackStatus: (t) => ({ params: { id: t.feedbackId }, body: { status: 'planned' } }),
  getLogSummary: () => ({ query: { slug: APP.slug } }),
  estimateBillingCost: () => ({ body: { computeMinutes: 1 } }),
  checkBillingBudget: () => ({ query: { slug: APP.slug, model: 'vision', inputTokens: '1', outputTokens: '1' } }),
  defineSemanticTypes: () => ({ body: SALES }),
  aggregateObjects: () => ({ body: { aggregation: [{ type: 'count' }] } }),
  editObjects: () => ({ body: { edits: [{ type: 'delete', objectType: 'sales.Customer', primaryKey: 'c1' }] } }),
  importObjects: () => ({ body: [{ id: 'c2' }] }),
  loadObjectSet: () => ({ body: { objectSet: CUSTOMERS } }),
  aggregateObjectSet: () => ({ body: { objectSet: CUSTOMERS, aggregation: [{ type: 'count' }] } }),
  createTemporaryObjectSet: () => ({ body: { objectSet: CUSTOMERS } }),
  streamOntologySubscriptions: () => ({ body: { requests: [{ objectSet: CUSTOMERS }] }, stream: true }),
  applyAction: () => ({ body: { parameters: { id: 'matrix-1', name: 'Matrix' } } }),
  applyActionBatch: () => ({ body: { requests: [{ parameters: { id: 'matrix-2', name: 'Matrix' } }] } }),
  defineActionTypes: () => ({ body: ACTIONS }),
  createBranch: () => ({ body: { name: 'matrix-new' } }),
  createProposal: () => ({ body: { title: 'Matrix' } }),
  watchWorkflowRuns: () => ({ stream: true }),
  executeAppApi: () => ({ body: { input: {} } }),
  setObjectTypeSecurity: () => ({ body: {} }),
  testObjectSecurity: () => ({ body: { object: { id: 'c1' } } }),
  executeOntologySql: () => ({ body: { query: 'SELECT id FROM "sales.Customer"', ontology: COMPANY_A } }),
  createDataConnection: () => ({ body: { kind: 'https', name: 'matrix-conn', url: 'https://example.com/orders' } }),
  createDataSync: () => ({
    body: { name: 'matrix-sync', connectionId: 'dcn_0000000000000000', objectType: 'sales.Order', source: {}, mapping: { number: 'id' } },
  }),
  createBuild: () => ({ body: { jobs: [{ syncId: 'dsy_0000000000000000' }] } }),
  // The stream routes' {name} is `run`, which no company has: admitted callers get stream_not_found.
  createStream: () => ({ body: { name: 'matrix-stream', fields: [{ name: 'id', type: 'string', required: true }] } }),
  putStreamBinding: () => ({ body: { mapping: { id: 'id' } } }),
  pushStreamRecords: () => ({ body: { records: [{ id: 'matrix-1' }] } }),
  createAutomation: () => ({
    body: {
      name: 'matrix-automation',
      app: APP.slug,
      condition: { type: 'schedule', cron: '0 3 * * *' },
      effects: [{ type: 'appWorkflow' }],
    },
  }),
  createMediaSet: () => ({ body: { organization: COMPANY_A, name: 'Matrix new media', schema: 'image' } }),
  putMediaItem: () => ({ query: { mediaItemPath: 'matrix-new.json' } }),
  createMediaUpload: () => ({ body: { sizeBytes: 1, mimeType: 'image/png' } }),
  readObjectMediaThumbnail: () => ({ query: { width: '64' } }),
  uploadAttachment: () => ({ query: { filename: 'matrix.json' } }),
  getMediaItemRidByPath: () => ({ query: { mediaItemPath: 'matrix.json' } }),
  // The matrix item is JSON: transformation_unavailable once admitted.
  transformMediaItem: () => ({ body: { transformation: { type: 'image', encoding: { type: 'png' } } } }),
  // The camera routes' {name} is `run`, which no company has: admitted callers get camera_not_found.
  createCamera: () => ({ body: { name: 'matrix-camera', kind: 'snapshot', url: 'http://192.0.2.10/snapshot.jpg' } }),
  updateCamera: () => ({ body: { maxViewers: 2 } }),
  ...Object.fromEntries(
    [
      'getWorkshopModule',
      'deleteWorkshopModule',
      'listWorkshopModuleVersions',
      'getWorkshopModuleVersion',
      'publishWorkshopModuleVersion',
    ].map((id) => [id, (t: Targets): MatrixRequest => ({ params: { rid: t.moduleRid, n: '1' } })]),
  ),
  createWorkshopModule: () => ({ body: { organization: COMPANY_A, name: 'Matrix new module', definition: MODULE_DEFINITION } }),
  saveWorkshopModuleVersion: (t) => ({ params: { rid: t.moduleRid }, body: { definition: MODULE_DEFINITION } }),
  evaluateWorkshopModule: (t) => ({ params: { rid: t.moduleRid }, body: { page: 'main' } }),
  autoRefreshWorkshopModule: (t) => ({ params: { rid: t.moduleRid }, query: { page: 'main' }, stream: true }),
  // The world routes' {name} is `run`, no asset of A: admitted callers get world_asset_not_found (a
  // generation's: once its credit check would pass, which the matrix app's default of 0 never lets it).
  putWorldAsset: () => ({ body: { document: { nodes: [] } } }),
  requestWorldGeneration: () => ({ body: { asset: 'matrix-scene', parts: [{ asset: 'run' }] } }),
  getWorldGeneration: () => ({ params: { id: 'wgen_0000000000000000' } }),
  ...withLegacyEvolvePaths({
    getEvolveEvidence: () => ({ query: { slug: APP.slug } }),
    suggestEvolveProposals: () => ({ body: { slug: APP.slug } }),
    // Personal: what an app's page may propose (the matrix app declares no slot: 400 once admitted).
    createEvolveProposal: () => ({
      body: { slug: APP.slug, title: 'Matrix', scope: 'personal', changes: [{ kind: 'slot', slot: 'header', hidden: true }] },
    }),
    listEvolveProposals: () => ({ query: { slug: APP.slug } }),
    getEvolveProposal: () => ({ params: { id: NO_PROPOSAL } }),
    applyEvolveProposal: () => ({ params: { id: NO_PROPOSAL } }),
    rejectEvolveProposal: () => ({ params: { id: NO_PROPOSAL } }),
    listEvolveImprovements: () => ({ query: { slug: APP.slug } }),
    deleteEvolveImprovement: () => ({ params: { id: 'evi_0000000000000000' } }),
    compileEvolveImprovements: () => ({ body: { slug: APP.slug, version: '9.0.0' } }),
  }),
};

/** Operations that end a fixture's credential or grant if a dry run ever failed to roll back: run after all others. */
const LAST = [
  'adminRemoveGroupMembers',
  'adminDeleteGroup',
  'revokeShare',
  'revokeResourceLink',
  'revokeAgentKey',
  'adminRevokeUserKeys',
  'adminDeleteLicense',
  'revokeKey',
  'webSignOut',
];

/**
 * The database as the matrix may not change it. Left out: what is written outside the request's
 * transaction on purpose (rate-limit counters, a key's last use, a device login's poll clock) and
 * the data layer's global orders, where a rolled-back write leaves a gap (as in routes-dry-run).
 */
const snapshot = () =>
  snapshotService(svc, {
    // An ontology SQL query makes the PostgreSQL login role of its reader's readable types on first use (a cache of roles, no data).
    ignoreTables: ['rate_limit_hits', 'ontology_sql_roles'],
    ignoreColumns: { device_logins: ['last_polled_at'], developer_keys: ['last_used_at'] },
    ignoreSequences: ['ontology_changes_seq_seq', 'ontology_edits_seq_seq'],
  });

interface Answer {
  status: number;
  code: string | undefined;
  /** For a 5xx: the error the service logged for the request. */
  logged?: string;
}

async function send(op: Operation, caller: Caller, t: Targets): Promise<Answer> {
  const req = REQUESTS[op.operationId]?.(t) ?? {};
  const params = { ...PARAMS(t), ...req.params };
  const path = op.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`${op.operationId}: no value for the path parameter {${name}}`);
    return encodeURIComponent(params[name]!);
  });
  const query = req.query ? `?${new URLSearchParams(req.query)}` : '';
  const body = op.method === 'GET' ? undefined : JSON.stringify(req.body ?? {});
  const abort = new AbortController();
  const res = await fetch(`${svc.url}${path}${query}`, {
    method: op.method,
    headers: {
      ...caller.headers,
      ...req.headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json', 'x-svc-dry-run': 'true' }),
    },
    body,
    signal: abort.signal,
  });
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    // An admitted stream never ends by itself: its status is the answer.
    abort.abort();
    return { status: res.status, code: undefined };
  }
  const text = await res.text();
  let parsed: { error?: { code?: string } | string } | undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  // The envelope's error code, or the OAuth endpoints' `error`.
  const code = typeof parsed?.error === 'string' ? parsed.error : parsed?.error?.code;
  if (res.status < 500) return { status: res.status, code };
  const requestId = res.headers.get('x-request-id');
  const line = svc.logs.find((l) => l.requestId === requestId && l.err !== undefined) as { err: { message?: string } } | undefined;
  return { status: res.status, code, logged: line?.err.message ?? 'nothing logged' };
}

type Verdict = { ok: true } | { ok: false; expected: string };

/**
 * What the table says this caller gets. A kind the route does not admit: 401/403. An admitted kind
 * acting outside the route's company or app: 401/403, or a 404 not-found code (the resource is
 * hidden). Otherwise the gate passes: anything but 401/403 (validation and missing things are fine).
 * Never a 5xx.
 */
function judge(access: RouteAccess, caller: Caller, answer: Answer): Verdict {
  const { status, code } = answer;
  if (status >= 500) return { ok: false, expected: 'never a 5xx' };
  const refused = status === 401 || status === 403;
  const hidden = status === 404 && code !== undefined && code.endsWith('not_found');
  // A route that reads no credential sees every caller as anonymous.
  const reads = credentialTypesOf(access);
  const kind = reads.key || reads.session || reads.ticket ? caller.kind : 'anonymous';
  if (!access.admits.includes(kind)) return refused ? { ok: true } : { ok: false, expected: 'denied (401/403)' };
  if (access.deniedInside?.includes(kind)) return refused || hidden ? { ok: true } : { ok: false, expected: 'denied inside (403/404)' };
  const ticket = caller.app !== undefined;
  const outside = access.scope !== 'none' && (caller.company !== 'A' || (access.scope === 'app' && ticket && caller.app !== APP.slug));
  if (outside) {
    return refused || hidden ? { ok: true } : { ok: false, expected: `denied outside its ${access.scope} (401/403/404)` };
  }
  return refused ? { ok: false, expected: 'admitted (not 401/403)' } : { ok: true };
}

describe('route × principal access matrix', () => {
  it('has an access entry for every operation of the OpenAPI document, and none for others', () => {
    const documented = operations.map((o) => o.operationId);
    expect(new Set(documented).size).toBe(documented.length);
    expect(documented.length).toBe(Object.keys(ROUTE_ACCESS).length);
    const missing = documented.filter((id) => !(id in ROUTE_ACCESS));
    expect(missing, `operations without an entry in ROUTE_ACCESS (domain/policy/route-access.ts): ${missing.join(', ')}`).toEqual([]);
    const stale = Object.keys(ROUTE_ACCESS).filter((id) => !documented.includes(id));
    expect(stale, `ROUTE_ACCESS entries for operations the document lacks: ${stale.join(', ')}`).toEqual([]);
    const unknownRequests = Object.keys(REQUESTS).filter((id) => !documented.includes(id));
    expect(unknownRequests, 'REQUESTS for operations the document lacks').toEqual([]);
  });

  it('has one caller of every kind, and the two cross-scope callers', () => {
    const kinds: CallerKind[] = [
      'anonymous',
      'member-key',
      'developer-key',
      'agent-key',
      'agent-key-restricted',
      'operator-key',
      'developer-session',
      'member-session',
      'developer-ticket',
      'member-ticket',
      'editor-ticket',
      'viewer-ticket',
      'member-app-token',
      'viewer-app-token',
    ];
    expect(new Set(fixture.callers.map((c) => c.kind))).toEqual(new Set(kinds));
    expect(fixture.callers.some((c) => c.kind === 'developer-key' && c.company === 'B')).toBe(true);
    expect(fixture.callers.some((c) => c.app !== undefined && c.app !== APP.slug)).toBe(true);
  });

  // One request per operation and caller (about 2000 on one service): a timeout for the whole loop.
  it('answers every operation × caller as the access table says', { timeout: 300_000 }, async () => {
    const ordered = [
      ...operations.filter((o) => !LAST.includes(o.operationId)),
      ...LAST.map((id) => operations.find((o) => o.operationId === id)!).filter(Boolean),
    ];
    expect(ordered.length).toBe(operations.length);
    const before = await snapshot();
    const mismatches: string[] = [];
    let asked = 0;
    for (const op of ordered) {
      const access = ROUTE_ACCESS[op.operationId];
      if (!access) continue; // reported by the first test
      // Eight callers at a time, each group in a fresh rate-limit window: under the smallest per-IP
      // route budget (10 a minute) and the app's requests a minute (30).
      for (let i = 0; i < fixture.callers.length; i += 8) {
        const group = fixture.callers.slice(i, i + 8);
        await resetRateLimits(svc);
        const answers = await Promise.all(group.map((caller) => send(op, caller, fixture.targets)));
        group.forEach((caller, j) => {
          const answer = answers[j]!;
          asked++;
          const verdict = judge(access, caller, answer);
          if (!verdict.ok) {
            mismatches.push(
              `| ${op.operationId} | ${caller.name} | ${verdict.expected} | ${answer.status} ${answer.code ?? ''}${answer.logged ? ` (${answer.logged})` : ''} | ${op.method} ${op.path} |`,
            );
          }
        });
      }
    }
    expect(asked).toBe(operations.length * fixture.callers.length);
    const after = await snapshot();
    const changed = Object.keys({ ...before, ...after }).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    expect.soft(changed, 'the matrix (dry runs, reads, refusals) changed the database').toEqual([]);
    const table = ['| operationId | caller | expected | got | route |', '| --- | --- | --- | --- | --- |', ...mismatches].join('\n');
    expect(mismatches.length, `${mismatches.length} of ${asked} answers differ from ROUTE_ACCESS:\n${table}\n`).toBe(0);
  });

  // Markings on top of the table: a marked type keeps its answers for the callers of accounts
  // cleared for its marking (dana, its ADMINISTER: her key, session, tickets and the agent keys she
  // issued; mo and gil through the group `Matrix cleared`, which holds USE: mo's key, session, ticket
  // and app token, gil's ticket through the group's share) and is found by no other caller (ed's and
  // vic's shares, anonymous, operators, company B), whatever the table admits them to.
  // About 100 requests, one caller after another: a timeout of its own, as the whole matrix's.
  it('hides a marked object type from every caller not cleared for its marking, in every data read', { timeout: 120_000 }, async () => {
    const O = `/api/v1/ontologies/${COMPANY_A}`;
    const reads: [string, string, unknown?][] = [
      ['GET', `${O}/objectTypes/sales.Order`],
      ['GET', `${O}/objects/sales.Order`],
      ['GET', `${O}/objects/sales.Order/1`],
      ['POST', `${O}/objects/sales.Order/search`, {}],
      ['POST', `${O}/objects/sales.Order/aggregate`, { aggregation: [{ type: 'count' }] }],
      ['POST', '/api/v1/sqlQueries/executeOntology', { ontology: COMPANY_A, query: 'SELECT count(*) FROM "sales.Order"' }],
    ];
    const answers = async () => {
      const out: Record<string, number[]> = {};
      for (const caller of fixture.callers) {
        await resetRateLimits(svc);
        out[caller.name] = [];
        for (const [method, path, body] of reads) {
          const res = await fetch(`${svc.url}${path}`, {
            method,
            headers: { ...caller.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          await res.arrayBuffer();
          out[caller.name]!.push(res.status);
        }
      }
      return out;
    };
    const dev = fixture.callers.find((c) => c.name === 'developer key')!;
    const type = await fetch(`${svc.url}${O}/objectTypes/sales.Order`, { headers: dev.headers });
    const rid = ((await type.json()) as { data: { rid: string } }).data.rid;
    const before = await answers();
    // Unmarked, members and share holders reach the type through their app: the marking is what changes their answers.
    expect(before['member key']).toEqual([200, 200, 200, 200, 200, 200]);
    expect(before['editor ticket (B, named share)']).toContain(200);
    expect(before['editor ticket (B, group share)']).toEqual(before['editor ticket (B, named share)']);
    const mark = (change: string) =>
      fetch(`${svc.url}/api/v1/filesystem/resources/${rid}/${change}`, {
        method: 'POST',
        headers: { ...dev.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ markingIds: [fixture.targets.markingId] }),
      });
    expect((await mark('addMarkings')).status).toBe(200);
    try {
      const after = await answers();
      const cleared = [
        'developer key',
        'developer session',
        'developer ticket',
        'developer ticket of another app',
        'agent key (read-only)',
        'agent key (restricted)',
        // Cleared only through their live membership of the group holding USE.
        'member key',
        'member session',
        'member ticket',
        'member app token',
        'editor ticket (B, group share)',
      ];
      const leaks: string[] = [];
      for (const caller of fixture.callers) {
        const got = after[caller.name]!;
        if (cleared.includes(caller.name)) {
          if (JSON.stringify(got) !== JSON.stringify(before[caller.name])) leaks.push(`${caller.name}: ${before[caller.name]} -> ${got}`);
        } else if (got.some((status) => status < 300)) {
          leaks.push(`${caller.name} (not cleared): ${got}`);
        }
      }
      expect(leaks).toEqual([]);
      expect(after['member key']).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      expect((await mark('removeMarkings')).status).toBe(200);
    }
  });

  // The pages and their files are outside the OpenAPI document: their own table, PAGE_ACCESS.
  it('has an access entry for every page route, and answers each page to every caller as that table says', async () => {
    // The routes are only declared here: no handler runs, so no dependency is needed.
    const routes = pagesRouter({} as ApiDeps).stack.map((layer) => layer.path);
    expect(new Set(routes), 'page routes and PAGE_ACCESS (domain/policy/route-access.ts)').toEqual(new Set(Object.keys(PAGE_ACCESS)));
    const params: Record<string, string> = { name: 'web.css', version: SWAGGER_UI_VERSION, file: 'swagger-ui.css' };
    const mismatches: string[] = [];
    for (const [route, access] of Object.entries(PAGE_ACCESS)) {
      const path = route.replace(/:(\w+)/g, (_, name: string) => params[name]!);
      for (const caller of fixture.callers) {
        const res = await fetch(`${svc.url}${path}`, { headers: caller.headers });
        await res.arrayBuffer();
        const verdict = judge(access, caller, { status: res.status, code: undefined });
        if (!verdict.ok || res.status !== 200) mismatches.push(`GET ${path} by ${caller.name}: ${res.status}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
