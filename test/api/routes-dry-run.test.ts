import path from 'node:path';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { legacyEvolveIds } from '../../domain/policy/index.ts';
import { randomBase62, sha256 } from '../../domain/security/random.ts';
import { type SmtpSink, startSmtpSink } from '../support/app-workflows.ts';
import { bundle } from '../support/bundles.ts';
import { snapshotService } from '../support/db-snapshot.ts';
import { EVOLVE_MANIFEST, evolveFiles } from '../support/evolve.ts';
import { release } from '../support/hosting.ts';
import { bearer, browser, createUser, PASSWORD, passwordKey, resetRateLimits, seedCompanies, signIn } from '../support/identity.ts';
import { approvedCode, appToken, authorizationRequest, CALLBACK, codeGrant } from '../support/oauth.ts';
import { SALES } from '../support/ontology.ts';
import { ACTIONS, ADD_CUSTOMER } from '../support/ontology-actions.ts';
import { initializeBody } from '../support/provisioning.ts';
import { startTestService, type TestService } from '../support/service.ts';

// docs/api/conventions.md: "Every write accepts x-svc-dry-run: true … the very same use case runs and the
// transaction is rolled back … the answer is 202 {dryRun: true, plan}". One valid request per
// write operation of the OpenAPI document, sent first as a dry run (nothing may change) and then
// for real (something must change: the proof that the request was valid and that the snapshot
// would have seen a change). A write operation added without a fixture fails the first test.

let svc: TestService;
let smtp: SmtpSink;
let op: string;
let dev: string;
let doc: { paths: Record<string, Record<string, { operationId: string; parameters?: { in: string; name: string }[] }>> };
let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

beforeAll(async () => {
  // No worker runs here: a control-plane start answers at once (runId null), its intent waiting in
  // the outbox; so do invitation emails (SMTP configured, so they are queued rather than recorded).
  smtp = await startSmtpSink();
  svc = await startTestService({ env: { SVC_RUN_START_WAIT_MS: '0', SVC_SMTP_URL: smtp.url } });
  ({ op } = await seedCompanies(svc));
  dev = await passwordKey(svc, 'dana');
  const res = await svc.call('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await svc?.close();
  await smtp?.stop();
});
beforeEach(() => resetRateLimits(svc));

/** A new group of Acme, made for real (dana's key). */
async function newGroup(): Promise<string> {
  const res = await svc.call('POST', '/api/v1/admin/groups', { body: { name: unique('dry-group') }, headers: bearer(dev) });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

/** A new marking of Acme in a new conjunctive category, dana its ADMINISTER (plus `more`), made for real. */
async function newMarking(more: object[] = []): Promise<string> {
  const category = await svc.call('POST', '/api/v1/admin/markingCategories', {
    body: { name: unique('dry-category'), categoryType: 'CONJUNCTIVE' },
    headers: bearer(dev),
  });
  expect(category.status).toBe(201);
  const dana = await accountIdOf('dana');
  const res = await svc.call('POST', '/api/v1/admin/markings', {
    body: {
      categoryId: category.body.data.id,
      name: unique('dry-marking'),
      initialRoleAssignments: [{ principalType: 'USER', principalId: dana, role: 'ADMINISTER' }, ...more],
    },
    headers: bearer(dev),
  });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

const accountIdOf = async (username: string) =>
  (await svc.database.db.selectFrom('accounts').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;

/**
 * Written outside the request's transaction on purpose, so a dry run rightly moves them:
 * rate-limit counters ("failures and dry runs count too"), the poll clock of a device login
 * (a dry-run poll is no way to poll faster) and a key's last use (authentication's own
 * bookkeeping, at most once a minute). Everything else, the outbox included, must stay as it was.
 */
const OUTSIDE_THE_TRANSACTION = {
  ignoreTables: ['rate_limit_hits'],
  ignoreColumns: { device_logins: ['last_polled_at'], developer_keys: ['last_used_at'] },
  // The data layer's global orders: a rolled-back write leaves a gap in them, never a row.
  ignoreSequences: ['ontology_changes_seq_seq', 'ontology_edits_seq_seq'],
};
const snapshot = () => snapshotService(svc, OUTSIDE_THE_TRANSACTION);
const outboxRows = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox`.execute(svc.database.db)).rows[0]!.n;

interface WriteCase {
  /** Values of the path's {placeholders}. */
  params?: Record<string, string>;
  /** A query string, `?…`. */
  query?: string;
  body?: unknown;
  /** The credential (and the same-origin signals a browser sends). */
  headers: Record<string, string>;
  /** The status of the same request without the dry-run header. */
  status: number;
  /** Outbox rows (workflow starts or signals) the real request writes. */
  enqueues?: number;
  /** The real request sets a cookie (the dry run must not). */
  setsCookie?: boolean;
  /** Undoes what the dry run rightly counted outside the transaction, where it would refuse the real request. */
  beforeReal?: () => Promise<void>;
  /** The real answer is not the envelope (the OAuth endpoints answer in the RFCs' shapes). */
  bare?: boolean;
}

const origin = () => ({ origin: svc.addresses.baseUrl });

async function startDeviceLogin() {
  const res = await svc.call('POST', '/api/v1/developer/device-codes', { body: {} });
  expect(res.status).toBe(201);
  return res.body.data as { deviceCode: string; userCode: string };
}

async function upload(slug: string, version: string) {
  const res = await svc.call('POST', `/api/v1/developer/apps/cell-acme/${slug}/versions`, {
    body: bundle(slug, version),
    headers: bearer(dev),
  });
  expect(res.status).toBe(201);
}

/** A company initialized through the control plane (its run waits in the outbox: no worker here). */
async function initializedCompany() {
  const cellId = `cell-${unique('init')}`;
  const res = await svc.call('POST', '/api/v1/control-plane/companies/initialize', {
    body: initializeBody(cellId, path.join(svc.companyRoot, cellId)),
    headers: bearer(op),
  });
  expect(res.status).toBe(202);
  return cellId;
}
const controlPlanePart = async () => ({ params: { cell: await initializedCompany() }, headers: bearer(op), status: 202, enqueues: 1 });

/** A released app of cell-acme with a fresh slug. */
async function releasedApp(prefix: string) {
  const slug = unique(prefix);
  await released(slug);
  return { namespace: 'cell-acme', slug };
}

async function released(slug: string) {
  await upload(slug, '1.0.0');
  for (const channel of ['test', 'production']) {
    const res = await svc.call('POST', `/api/v1/developer/apps/cell-acme/${slug}/channels/${channel}`, { body: {}, headers: bearer(dev) });
    expect(res.status).toBe(200);
  }
}

const APPS_RID = 'ri.workshop.svc.applications.cell-acme';
const clearGrants = async () => void (await svc.database.db.deleteFrom('resource_grants').execute());

/** A media set of Acme that takes any type (dana's, made for real), and an open transaction on its main branch. */
async function mediaSet(): Promise<string> {
  const res = await svc.call('POST', '/api/v1/mediasets', { body: { name: unique('dry-media'), schema: 'any' }, headers: bearer(dev) });
  expect(res.status).toBe(201);
  return res.body.data.rid;
}
async function openMediaTransaction(): Promise<{ mediaSetRid: string; transactionId: string }> {
  const mediaSetRid = await mediaSet();
  const res = await svc.call('POST', `/api/v1/mediasets/${mediaSetRid}/transactions`, { headers: bearer(dev) });
  expect(res.status).toBe(201);
  const put = await svc.call(
    'POST',
    `/api/v1/mediasets/${mediaSetRid}/items?mediaItemPath=staged.json&transactionId=${res.body.data.transactionId}`,
    {
      body: { staged: true },
      headers: bearer(dev),
    },
  );
  expect(put.status).toBe(201);
  return { mediaSetRid, transactionId: res.body.data.transactionId };
}

/** A camera of Acme (dana's, made for real; nothing is contacted when a camera is registered or changed). */
async function camera(): Promise<{ namespace: string; name: string }> {
  const name = unique('dry-camera');
  const res = await svc.call('POST', '/api/v1/developer/vision/cell-acme/cameras', {
    body: { name, kind: 'snapshot', url: 'http://192.0.2.10/snapshot.jpg' },
    headers: bearer(dev),
  });
  expect(res.status).toBe(201);
  return { namespace: 'cell-acme', name };
}

/** A new HTTPS data connection of Globex (made for real; a loopback address it never reaches). */
async function newConnection(): Promise<string> {
  await globexOntology();
  const res = await svc.call('POST', '/api/v1/connectivity/cell-globex/connections', {
    body: { kind: 'https', name: unique('dry-conn'), url: 'http://127.0.0.1:9/orders' },
    headers: bearer(globex!),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}

/** A sync of Globex's orders from a new connection (in Globex: Acme's first definition belongs to the defineSemanticTypes fixture). */
async function syncBody(more: Record<string, unknown> = {}) {
  return {
    name: unique('dry-sync'),
    connectionId: await newConnection(),
    objectType: 'sales.Order',
    source: {},
    mapping: { number: 'id' },
    ...more,
  };
}

async function newSync(): Promise<string> {
  const res = await svc.call('POST', '/api/v1/connectivity/cell-globex/syncs', { body: await syncBody(), headers: bearer(globex!) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}

/** A stream of Globex's orders (made for real), bound to sales.Order when `bound`. */
async function newStream(bound = false): Promise<{ namespace: string; name: string }> {
  await globexOntology();
  const name = unique('dry-stream');
  const base = `/api/v1/developer/streams/cell-globex/${name}`;
  const fields = [{ name: 'id', type: 'long', required: true }];
  const res = await svc.call('POST', '/api/v1/developer/streams/cell-globex', { body: { name, fields }, headers: bearer(globex!) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  if (bound) {
    const put = await svc.call('PUT', `${base}/bindings/sales.Order`, { body: { mapping: { number: 'id' } }, headers: bearer(globex!) });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  }
  return { namespace: 'cell-globex', name };
}
let streamRecord = 0;

const MARKDOWN_MODULE = { title: 'Dry', pages: [{ id: 'main', title: 'Main', widgets: [{ id: 'note', type: 'markdown', text: 'hi' }] }] };
/** An application module of Acme with version 1 (dana's, made for real). */
async function workshopModule(): Promise<string> {
  const res = await svc.call('POST', '/api/v1/workshop/modules', {
    body: { name: unique('dry-module'), definition: MARKDOWN_MODULE },
    headers: bearer(dev),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.rid;
}

/** A world-model asset of Acme (dana's, uploaded for real). */
async function worldAsset(): Promise<{ namespace: string; name: string }> {
  const name = unique('dry-scene');
  const res = await svc.call('PUT', `/api/v1/developer/modeling/cell-acme/assets/${name}`, {
    body: { document: { nodes: [] } },
    headers: bearer(dev),
  });
  expect(res.status).toBe(201);
  return { namespace: 'cell-acme', name };
}

/** An automation of Acme's new app (dana's, made for real): a daily schedule that starts the app's workflow. */
const automationBody = (slug: string, more: Record<string, unknown> = {}) => ({
  name: unique('dry-automation'),
  app: slug,
  condition: { type: 'schedule', cron: '0 3 * * *' },
  effects: [{ type: 'appWorkflow' }],
  ...more,
});
async function automation(more: Record<string, unknown> = {}): Promise<{ namespace: string; automationId: string }> {
  const { slug } = await releasedApp('dry-automated');
  const res = await svc.call('POST', '/api/v1/automate/automations/cell-acme', { body: automationBody(slug, more), headers: bearer(dev) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { namespace: 'cell-acme', automationId: res.body.data.id };
}

/** One valid request per write operation, keyed by operationId. */
const FIXTURES: Record<string, () => Promise<WriteCase>> = {
  // Each answers the intent that makes its workflow and schedule follow.
  createAutomation: async () => ({
    params: { namespace: 'cell-acme' },
    body: automationBody((await releasedApp('dry-automated')).slug),
    headers: bearer(dev),
    status: 201,
    enqueues: 1,
  }),
  updateAutomation: async () => ({ params: await automation(), body: { dailyCap: 5 }, headers: bearer(dev), status: 200, enqueues: 1 }),
  deleteAutomation: async () => ({ params: await automation(), headers: bearer(dev), status: 200, enqueues: 1 }),
  enableAutomation: async () => ({ params: await automation({ enabled: false }), headers: bearer(dev), status: 200, enqueues: 1 }),
  disableAutomation: async () => ({ params: await automation(), headers: bearer(dev), status: 200, enqueues: 1 }),
  createCamera: async () => ({
    params: { namespace: 'cell-acme' },
    body: { name: unique('dry-camera'), kind: 'mjpeg', url: 'http://192.0.2.10/stream.mjpg', maxViewers: 2 },
    headers: bearer(dev),
    status: 201,
  }),
  updateCamera: async () => ({ params: await camera(), body: { maxViewers: 8 }, headers: bearer(dev), status: 200 }),
  deleteCamera: async () => ({ params: await camera(), headers: bearer(dev), status: 200 }),
  createDataConnection: async () => {
    await globexOntology();
    return {
      params: { namespace: 'cell-globex' },
      body: { kind: 'postgresql', name: unique('dry-pg'), connectionString: 'postgres://reader:secret@db.example.com/orders' },
      headers: bearer(globex!),
      status: 201,
    };
  },
  deleteDataConnection: async () => ({
    params: { namespace: 'cell-globex', connectionId: await newConnection() },
    headers: bearer(globex!),
    status: 200,
  }),
  createDataSync: async () => ({ params: { namespace: 'cell-globex' }, body: await syncBody(), headers: bearer(globex!), status: 201 }),
  // With a schedule: the outbox intent that removes its Temporal Schedule.
  deleteDataSync: async () => {
    const res = await svc.call('POST', '/api/v1/connectivity/cell-globex/syncs', {
      body: await syncBody({ schedule: '0 3 * * *' }),
      headers: bearer(globex!),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { params: { namespace: 'cell-globex', syncId: res.body.data.id }, headers: bearer(globex!), status: 200, enqueues: 1 };
  },
  createStream: async () => {
    await globexOntology();
    return {
      params: { namespace: 'cell-globex' },
      body: { name: unique('dry-stream'), fields: [{ name: 'id', type: 'string', required: true }] },
      headers: bearer(globex!),
      status: 201,
    };
  },
  deleteStream: async () => ({ params: await newStream(), headers: bearer(globex!), status: 200 }),
  putStreamBinding: async () => ({
    params: { ...(await newStream()), objectType: 'sales.Order' },
    body: { mapping: { number: 'id' } },
    headers: bearer(globex!),
    status: 200,
  }),
  deleteStreamBinding: async () => ({
    params: { ...(await newStream(true)), objectType: 'sales.Order' },
    headers: bearer(globex!),
    status: 200,
  }),
  // Bound: the dry run neither stores the record nor writes its object (nor the change feed's outbox intent).
  pushStreamRecords: async () => ({
    params: await newStream(true),
    body: { records: [{ id: 9_000_000 + ++streamRecord }] },
    headers: bearer(globex!),
    status: 200,
    enqueues: 1,
  }),
  createBuild: async () => ({
    params: { namespace: 'cell-globex' },
    body: { jobs: [{ syncId: await newSync() }] },
    headers: bearer(globex!),
    status: 201,
    enqueues: 1,
  }),
  cancelBuild: async () => {
    const syncId = await newSync();
    const res = await svc.call('POST', '/api/v1/orchestration/builds/cell-globex', {
      body: { jobs: [{ syncId }] },
      headers: bearer(globex!),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { params: { namespace: 'cell-globex', buildId: res.body.data.id }, headers: bearer(globex!), status: 200, enqueues: 1 };
  },
  // The run starts from its outbox intent.
  syncPlatformDataSource: async () => ({ params: await globexOntology(), headers: bearer(globex!), status: 202, enqueues: 1 }),
  createWorkshopModule: async () => ({
    body: { name: unique('dry-module'), definition: MARKDOWN_MODULE },
    headers: bearer(dev),
    status: 201,
  }),
  saveWorkshopModuleVersion: async () => ({
    params: { rid: await workshopModule() },
    body: { definition: MARKDOWN_MODULE },
    headers: bearer(dev),
    status: 201,
  }),
  publishWorkshopModuleVersion: async () => ({ params: { rid: await workshopModule(), n: '1' }, headers: bearer(dev), status: 200 }),
  deleteWorkshopModule: async () => ({ params: { rid: await workshopModule() }, headers: bearer(dev), status: 200 }),
  putWorldAsset: async () => ({
    params: { namespace: 'cell-acme', name: unique('dry-scene') },
    body: { document: { nodes: [{ name: 'cube' }] } },
    headers: bearer(dev),
    status: 201,
  }),
  deleteWorldAsset: async () => ({ params: await worldAsset(), headers: bearer(dev), status: 200 }),
  // An app that registers `modeling` with a world credit a day: the real request counts it and starts the workflow.
  requestWorldGeneration: async () => {
    const slug = unique('dry-world');
    await release(svc, dev, {
      namespace: 'cell-acme',
      slug,
      version: '1.0.0',
      manifest: { sdk: ['modeling'], limits: { worldCreditsPerDay: 1 } },
    });
    const page = await fetch(`${svc.addresses.productionBase}/cell-acme/apps/${slug}`, { headers: bearer(dev) });
    const ticket = /<meta name="svc-app-ticket" content="([^"]+)">/.exec(await page.text())![1]!;
    const { name } = await worldAsset();
    return {
      params: { namespace: 'cell-acme' },
      body: { asset: unique('dry-composed'), parts: [{ asset: name }] },
      headers: bearer(ticket),
      status: 202,
      enqueues: 1,
    };
  },
  createMediaSet: async () => ({
    body: { name: unique('dry-media'), schema: 'image', allowedMimeTypes: ['image/png'] },
    headers: bearer(dev),
    status: 201,
  }),
  createMediaSetTransaction: async () => ({
    params: { mediaSetRid: await mediaSet() },
    query: '?branchName=draft',
    headers: bearer(dev),
    status: 201,
  }),
  commitMediaSetTransaction: async () => ({ params: await openMediaTransaction(), headers: bearer(dev), status: 200 }),
  abortMediaSetTransaction: async () => ({ params: await openMediaTransaction(), headers: bearer(dev), status: 200 }),
  // The body is the item's bytes (JSON here, which an `any` set takes); the dry run reads and hashes them but stores nothing.
  putMediaItem: async () => ({
    params: { mediaSetRid: await mediaSet() },
    query: `?mediaItemPath=${unique('dry')}.json`,
    body: { bytes: unique('content') },
    headers: bearer(dev),
    status: 201,
  }),
  // The body is the file's bytes (JSON here); the dry run reads and hashes them but stores nothing.
  uploadAttachment: async () => ({
    query: `?filename=${unique('dry')}.json`,
    body: { bytes: unique('attachment') },
    headers: bearer(dev),
    status: 200,
  }),
  // A PNG put for real first; the dry run names the job and runs nothing, the real request transforms and records it.
  transformMediaItem: async () => {
    const mediaSetRid = await mediaSet();
    const png = await sharp({ create: { width: 6, height: 4, channels: 3, background: '#36c' } })
      .png()
      .toBuffer();
    const put = await svc.call('POST', `/api/v1/mediasets/${mediaSetRid}/items?mediaItemPath=${unique('dry')}.png`, {
      rawBody: png,
      headers: { ...bearer(dev), 'content-type': 'image/png' },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    return {
      params: { mediaSetRid, mediaItemRid: put.body.data.mediaItemRid },
      body: { transformation: { type: 'image', operations: [{ type: 'resize', width: 3 }], encoding: { type: 'webp' } } },
      headers: bearer(dev),
      status: 201,
    };
  },
  webSignIn: async () => ({
    body: { login: 'dana', password: PASSWORD },
    headers: origin(),
    status: 201,
    setsCookie: true,
  }),
  webChangePassword: async () => {
    const { username } = await createUser(svc, op, unique('changer'), [{ cellId: 'cell-acme', role: 'member' }]);
    return {
      body: { login: username, currentPassword: PASSWORD, newPassword: 'another-long-password' },
      headers: origin(),
      status: 200,
    };
  },
  webSignOut: async () => ({ headers: browser(await signIn(svc, 'dana'), svc), status: 200, setsCookie: true }),
  createDeviceCode: async () => ({ body: { clientName: 'dry laptop' }, headers: {}, status: 201, enqueues: 1 }),
  pollDeviceToken: async () => {
    const started = await startDeviceLogin();
    const approved = await svc.call('POST', '/api/v1/developer/device-codes/decision', {
      body: { userCode: started.userCode, decision: 'approve' },
      headers: browser(await signIn(svc, 'dana'), svc),
    });
    expect(approved.status).toBe(200);
    return {
      body: { deviceCode: started.deviceCode },
      headers: {},
      status: 201,
      enqueues: 1, // device-login.closed: the expiry workflow ends
      // The dry-run poll set the poll clock; the real client would come back after the interval.
      beforeReal: async () => void (await sql`UPDATE device_logins SET last_polled_at = NULL`.execute(svc.database.db)),
    };
  },
  decideDeviceCode: async () => {
    const started = await startDeviceLogin();
    return {
      body: { userCode: started.userCode, decision: 'approve' },
      headers: browser(await signIn(svc, 'dana'), svc),
      status: 200,
    };
  },
  createPasswordToken: async () => ({ body: { login: 'dana', password: PASSWORD, clientName: 'dry run' }, headers: {}, status: 201 }),
  revokeKey: async () => {
    const issued = await svc.call('POST', '/api/v1/developer/password-tokens', { body: { login: 'dana', password: PASSWORD } });
    expect(issued.status).toBe(201);
    return { params: { keyId: issued.body.data.keyId }, headers: bearer(issued.body.data.key), status: 200 };
  },
  adminCreateOrganization: async () => ({ body: { cellId: `cell-${unique('dry')}`, name: 'Dry Co' }, headers: bearer(op), status: 201 }),
  adminCreateUser: async () => {
    const username = unique('newcomer');
    return {
      body: {
        username,
        email: `${username}@example.com`,
        password: 'a-long-password-1',
        emailVerified: true,
        licenses: [{ cellId: 'cell-acme', role: 'member' }],
      },
      headers: bearer(op),
      status: 201,
    };
  },
  adminUpdateUser: async () => {
    const { id } = await createUser(svc, op, unique('to-disable'), [{ cellId: 'cell-acme', role: 'member' }]);
    return { params: { id }, body: { status: 'disabled' }, headers: bearer(op), status: 200 };
  },
  adminSetUserAttributes: async () => ({
    params: { id: await accountIdOf('mo') },
    body: { organization: 'cell-acme', attributes: { region: ['north'] } },
    headers: bearer(dev),
    status: 200,
  }),
  adminPutLicense: async () => {
    const { id } = await createUser(svc, op, unique('to-license'), []);
    return { params: { id, cellId: 'cell-globex' }, body: { role: 'developer' }, headers: bearer(op), status: 200 };
  },
  adminDeleteLicense: async () => {
    const { id } = await createUser(svc, op, unique('to-unlicense'), [{ cellId: 'cell-acme', role: 'member' }]);
    return { params: { id, cellId: 'cell-acme' }, headers: bearer(op), status: 200 };
  },
  adminRevokeUserKeys: async () => {
    const { id, username } = await createUser(svc, op, unique('to-revoke'), [{ cellId: 'cell-acme', role: 'developer' }]);
    await passwordKey(svc, username);
    return { params: { id }, headers: bearer(op), status: 200 };
  },
  uploadAppVersion: async () => {
    const slug = unique('dry-upload');
    return { params: { namespace: 'cell-acme', slug }, body: bundle(slug, '1.0.0'), headers: bearer(dev), status: 201 };
  },
  promoteAppVersion: async () => {
    const slug = unique('dry-promote');
    await upload(slug, '1.0.0');
    return { params: { namespace: 'cell-acme', slug, channel: 'test' }, body: {}, headers: bearer(dev), status: 200 };
  },
  executeAppApi: async () => {
    const slug = unique('dry-flow');
    const workflow = { steps: [{ id: 'people', kind: 'use', capability: 'platform.accounts' }] };
    const up = await svc.call('POST', `/api/v1/developer/apps/cell-acme/${slug}/versions`, {
      body: bundle(slug, '1.0.0', { manifest: { sdk: ['semantic'], workflow } }),
      headers: bearer(dev),
    });
    expect(up.status).toBe(201);
    for (const channel of ['test', 'production']) {
      const res = await svc.call('POST', `/api/v1/developer/apps/cell-acme/${slug}/channels/${channel}`, {
        body: {},
        headers: bearer(dev),
      });
      expect(res.status).toBe(200);
    }
    // No worker here: the run waits in the outbox (202, running).
    return { params: { namespace: 'cell-acme', slug, name: 'run' }, body: { input: {} }, headers: bearer(dev), status: 202, enqueues: 1 };
  },
  sendTestNotification: async () => ({ headers: bearer(dev), status: 200 }),
  controlPlaneInitializeCompany: async () => {
    const cellId = `cell-${unique('init')}`;
    return { body: initializeBody(cellId, path.join(svc.companyRoot, cellId)), headers: bearer(op), status: 202, enqueues: 1 };
  },
  controlPlaneCloudInstance: controlPlanePart,
  controlPlaneFolders: controlPlanePart,
  controlPlaneAgentProfiles: controlPlanePart,
  createShare: async () => {
    const slug = unique('dry-share');
    await upload(slug, '1.0.0');
    return { body: { namespace: 'cell-acme', slug, audience: 'public' }, headers: bearer(dev), status: 201 };
  },
  revokeShare: async () => {
    const slug = unique('dry-revoke');
    await upload(slug, '1.0.0');
    const res = await svc.call('POST', '/api/v1/developer/shares', {
      body: { namespace: 'cell-acme', slug, audience: 'company' },
      headers: bearer(dev),
    });
    expect(res.status).toBe(201);
    return { params: { id: res.body.data.share.id }, query: `?namespace=cell-acme&slug=${slug}`, headers: bearer(dev), status: 200 };
  },
  importMembers: async () => ({ body: [{ email: `${unique('imported')}@example.com` }], headers: bearer(dev), status: 200, enqueues: 1 }),
  reissueMemberInvitation: async () => {
    const res = await svc.call('POST', '/api/v1/developer/members/import', {
      body: [{ email: `${unique('reinvited')}@example.com` }],
      headers: bearer(dev),
    });
    return { params: { accountId: res.body.data.results[0].accountId }, headers: bearer(dev), status: 201, enqueues: 1 };
  },
  adminSetSeatLimit: async () => ({ params: { rid: 'cell-globex' }, body: { limit: 50 + counter++ }, headers: bearer(op), status: 200 }),
  adminCreateGroup: async () => ({ body: { name: unique('dry-group') }, headers: bearer(dev), status: 201 }),
  adminDeleteGroup: async () => ({ params: { groupId: await newGroup() }, headers: bearer(dev), status: 200 }),
  adminAddGroupMembers: async () => ({
    params: { groupId: await newGroup() },
    body: { principalIds: [await accountIdOf('mo')] },
    headers: bearer(dev),
    status: 200,
  }),
  adminRemoveGroupMembers: async () => {
    const groupId = await newGroup();
    const mo = await accountIdOf('mo');
    const added = await svc.call('POST', `/api/v1/admin/groups/${groupId}/groupMembers/add`, {
      body: { principalIds: [mo] },
      headers: bearer(dev),
    });
    expect(added.status).toBe(200);
    return { params: { groupId }, body: { principalIds: [mo] }, headers: bearer(dev), status: 200 };
  },
  adminCreateMarkingCategory: async () => ({
    body: { name: unique('dry-category'), categoryType: 'DISJUNCTIVE' },
    headers: bearer(dev),
    status: 201,
  }),
  adminCreateMarking: async () => {
    const category = await svc.call('POST', '/api/v1/admin/markingCategories', {
      body: { name: unique('dry-category'), categoryType: 'CONJUNCTIVE' },
      headers: bearer(dev),
    });
    return {
      body: {
        categoryId: category.body.data.id,
        name: unique('dry-marking'),
        initialRoleAssignments: [{ principalType: 'USER', principalId: await accountIdOf('dana'), role: 'ADMINISTER' }],
      },
      headers: bearer(dev),
      status: 201,
    };
  },
  adminAddMarkingRoleAssignments: async () => ({
    params: { markingId: await newMarking() },
    body: { roleAssignments: [{ principalType: 'USER', principalId: await accountIdOf('mo'), role: 'USE' }] },
    headers: bearer(dev),
    status: 200,
  }),
  adminRemoveMarkingRoleAssignments: async () => {
    const use = { principalType: 'USER', principalId: await accountIdOf('mo'), role: 'USE' };
    return { params: { markingId: await newMarking([use]) }, body: { roleAssignments: [use] }, headers: bearer(dev), status: 200 };
  },
  addResourceMarkings: async () => {
    const slug = unique('dry-marked');
    await upload(slug, '1.0.0');
    const rid = `ri.workshop.svc.app.cell-acme.${slug}`;
    return { params: { rid }, body: { markingIds: [await newMarking()] }, headers: bearer(dev), status: 200 };
  },
  removeResourceMarkings: async () => {
    const slug = unique('dry-unmarked');
    await upload(slug, '1.0.0');
    const rid = `ri.workshop.svc.app.cell-acme.${slug}`;
    const markingId = await newMarking();
    const added = await svc.call('POST', `/api/v1/filesystem/resources/${rid}/addMarkings`, {
      body: { markingIds: [markingId] },
      headers: bearer(dev),
    });
    expect(added.status).toBe(200);
    return { params: { rid }, body: { markingIds: [markingId] }, headers: bearer(dev), status: 200 };
  },
  webAcceptInvitation: async () => {
    const res = await svc.call('POST', '/api/v1/developer/members/import', {
      body: [{ email: `${unique('invited')}@example.com` }],
      headers: bearer(dev),
    });
    // The link reaches only the person's mailbox (no SMTP here, so none is made): give the account one whose token the test knows.
    const invitation = randomBase62(24);
    await svc.database.db
      .insertInto('account_invitations')
      .values({ hash: sha256(invitation), account_id: res.body.data.results[0].accountId, expires_at: new Date(Date.now() + 86_400_000) })
      .execute();
    return { body: { invitation, password: 'a-long-password-1' }, headers: origin(), status: 200 };
  },
  addResourceRole: async () => ({
    params: { rid: APPS_RID },
    body: { principal: `cell-globex`, role: 'viewer' },
    headers: bearer(dev),
    status: 200,
    beforeReal: () => clearGrants(),
  }),
  removeResourceRole: async () => {
    await svc.call('POST', `/api/v1/filesystem/resources/${APPS_RID}/roles/add`, {
      body: { principal: 'cell-globex', role: 'viewer' },
      headers: bearer(dev),
    });
    return { params: { rid: APPS_RID }, body: { principal: 'cell-globex' }, headers: bearer(dev), status: 200 };
  },
  setResourceTier: async () => {
    await clearGrants();
    return { params: { rid: APPS_RID }, body: { tier: 'public' }, headers: bearer(dev), status: 200 };
  },
  createResourceLink: async () => ({ params: { rid: APPS_RID }, body: { days: 7 }, headers: bearer(dev), status: 201 }),
  revokeResourceLink: async () => {
    const res = await svc.call('POST', `/api/v1/filesystem/resources/${APPS_RID}/links`, { body: {}, headers: bearer(dev) });
    return { params: { rid: APPS_RID, linkId: res.body.data.id }, headers: bearer(dev), status: 200 };
  },
  redeemResourceLink: async () => {
    await clearGrants();
    const res = await svc.call('POST', `/api/v1/filesystem/resources/${APPS_RID}/links`, { body: {}, headers: bearer(dev) });
    return { body: { token: res.body.data.token }, headers: bearer(await passwordKey(svc, 'gus')), status: 200 };
  },
  renewAppTicket: async () => {
    const slug = unique('dry-ticket');
    await released(slug);
    const page = await fetch(`${svc.addresses.productionBase}/cell-acme/apps/${slug}`, { headers: bearer(dev) });
    const ticket = /<meta name="svc-app-ticket" content="([^"]+)">/.exec(await page.text())![1]!;
    return { params: { namespace: 'cell-acme', slug }, headers: bearer(ticket), status: 201 };
  },
  recordLogEvents: async () => {
    const slug = unique('dry-log');
    await upload(slug, '1.0.0');
    return {
      params: { namespace: 'cell-acme' },
      body: {
        slug,
        events: [
          { kind: 'feedback', topic: 'dry' },
          { kind: 'error', error: { message: 'dry' } },
        ],
      },
      headers: bearer(dev),
      status: 201,
    };
  },
  registerOAuthClient: async () => ({ body: { client_name: 'Dry host', redirect_uris: [CALLBACK] }, headers: {}, status: 201, bare: true }),
  decideOAuthAuthorization: async () => {
    const request = await authorizationRequest(svc, await releasedApp('dry-consent'));
    return { body: { ...request, decision: 'approve' }, headers: browser(await signIn(svc, 'mo'), svc), status: 200 };
  },
  issueOAuthToken: async () => {
    const request = await authorizationRequest(svc, await releasedApp('dry-token'));
    const code = await approvedCode(svc, 'mo', request);
    return { body: codeGrant(request.client_id, code), headers: {}, status: 200, bare: true };
  },
  revokeOAuthToken: async () => ({
    body: { token: await appToken(svc, 'mo', await releasedApp('dry-revoke')) },
    headers: {},
    status: 200,
    bare: true,
  }),
  setFeedbackStatus: async () => {
    const slug = unique('dry-feedback');
    await upload(slug, '1.0.0');
    const res = await svc.call('POST', '/api/v1/developer/log/cell-acme/events', {
      body: { slug, events: [{ kind: 'feedback', topic: 'dry' }] },
      headers: bearer(dev),
    });
    expect(res.status).toBe(201);
    return { params: { namespace: 'cell-acme', id: res.body.data.ids[0] }, body: { status: 'planned' }, headers: bearer(dev), status: 200 };
  },
  defineSemanticTypes: async () => ({ params: { namespace: 'cell-acme' }, body: SALES, headers: bearer(dev), status: 200 }),
  createMediaUpload: async () => ({
    params: await photoProperty(),
    body: { sizeBytes: 10, mimeType: 'image/png', primaryKey: 'p1' },
    headers: bearer(globex!),
    status: 201,
  }),
  // The part is JSON here; the dry run reads and hashes it but stores nothing.
  putMediaUploadPart: async () => ({
    params: { ...(await photoUpload(100)), partNumber: '1' },
    body: { part: unique('bytes') },
    headers: bearer(globex!),
    status: 200,
  }),
  // The dry run assembles and hashes, storing nothing; the real one sets p1's image (one outbox intent, as every edit).
  completeMediaUpload: async () => ({
    params: await photoUpload(6, [Buffer.from('abc'), Buffer.from('def')]),
    headers: bearer(globex!),
    status: 200,
    enqueues: 1,
  }),
  deleteMediaUpload: async () => ({ params: await photoUpload(3, [Buffer.from('abc')]), headers: bearer(globex!), status: 200 }),
  editObjects: async () => {
    await globexOntology();
    return {
      params: { ontology: 'cell-globex' },
      body: { edits: [{ type: 'create', objectType: 'sales.Customer', properties: { id: unique('customer') } }] },
      headers: bearer(globex!),
      status: 200,
      enqueues: 1,
    };
  },
  // Nulls globex orders' notes for anyone but gus: nothing else of this file reads them.
  setObjectTypeSecurity: async () => ({
    params: await globexOntology(),
    body: {
      propertyPolicies: [{ properties: ['note'], conditions: [{ type: 'userAttribute', property: 'note', attribute: 'svc:username' }] }],
    },
    headers: bearer(globex!),
    status: 200,
  }),
  defineActionTypes: async () => {
    await defineSalesActions();
    // A new description: a new version.
    return {
      params: { namespace: 'cell-acme' },
      body: { actionTypes: [{ ...ADD_CUSTOMER, description: unique('dry') }] },
      headers: bearer(dev),
      status: 200,
    };
  },
  applyAction: async () => {
    await defineSalesActions();
    return {
      params: { ontology: 'cell-acme', action: 'sales.addCustomer' },
      body: { parameters: { id: unique('customer'), name: 'Dry' } },
      headers: bearer(dev),
      status: 200,
      enqueues: 1,
    };
  },
  createTemporaryObjectSet: async () => {
    await globexOntology();
    return {
      params: { ontology: 'cell-globex' },
      body: { objectSet: { type: 'base', objectType: 'sales.Order' } },
      headers: bearer(globex!),
      status: 200,
    };
  },
  importObjects: async () => ({
    params: await globexOntology(),
    body: [{ number: ++counter, amount: 1 }],
    headers: bearer(globex!),
    status: 200,
    enqueues: 1,
  }),
  applyActionBatch: async () => {
    await defineSalesActions();
    return {
      params: { ontology: 'cell-acme', action: 'sales.addCustomer' },
      body: {
        requests: [{ parameters: { id: unique('customer'), name: 'One' } }, { parameters: { id: unique('customer'), name: 'Two' } }],
      },
      headers: bearer(dev),
      status: 200,
      enqueues: 1,
    };
  },
  issueAgentKey: async () => ({ params: { namespace: 'cell-acme' }, body: { agentId: unique('bot') }, headers: bearer(dev), status: 201 }),
  revokeAgentKey: async () => {
    const issued = await svc.call('POST', '/api/v1/developer/agent-keys/cell-acme', {
      body: { agentId: unique('bot') },
      headers: bearer(dev),
    });
    expect(issued.status).toBe(201);
    return { params: { namespace: 'cell-acme', keyId: issued.body.data.keyId }, headers: bearer(dev), status: 200 };
  },
  createBranch: async () => {
    await defineSalesActions();
    return { params: { namespace: 'cell-acme' }, body: { name: unique('branch') }, headers: bearer(dev), status: 201 };
  },
  createProposal: async () => ({
    params: { namespace: 'cell-acme', branch: await branch() },
    body: { title: 'Dry' },
    headers: bearer(dev),
    status: 201,
  }),
  approveProposal: async () => ({ params: { namespace: 'cell-acme', proposalId: await proposal() }, headers: await web(), status: 200 }),
  rejectProposal: async () => ({ params: { namespace: 'cell-acme', proposalId: await proposal() }, headers: await web(), status: 200 }),
  mergeProposal: async () => {
    const id = await proposal([
      { apiName: `dry.Merged${++counter}`, primaryKey: 'id', properties: { id: { dataType: { type: 'string' } } } },
    ]);
    const headers = await web();
    expect((await svc.call('POST', `/api/v1/developer/semantic/cell-acme/proposals/${id}/approve`, { headers })).status).toBe(200);
    return { params: { namespace: 'cell-acme', proposalId: id }, headers, status: 200 };
  },
  ...withLegacyEvolvePaths({
    // A new feedback on the header each time: the open proposals answer the earlier ones.
    suggestEvolveProposals: async () => {
      await evolveFeedback();
      return { params: EVOLVE_APP, body: { slug: EVOLVE_APP.slug }, headers: bearer(dev), status: 201 };
    },
    createEvolveProposal: async () => {
      await evolveApp();
      return { params: EVOLVE_APP, body: { ...EVOLVE_PROPOSAL, slug: EVOLVE_APP.slug }, headers: bearer(dev), status: 201 };
    },
    applyEvolveProposal: async () => ({ params: { ...EVOLVE_APP, id: await evolveProposal() }, headers: await web(), status: 200 }),
    rejectEvolveProposal: async () => ({ params: { ...EVOLVE_APP, id: await evolveProposal() }, headers: await web(), status: 200 }),
    deleteEvolveImprovement: async () => ({ params: { ...EVOLVE_APP, id: await evolveImprovement() }, headers: bearer(dev), status: 200 }),
    // Uploads a new version with the company-wide improvements folded in.
    compileEvolveImprovements: async () => {
      await evolveImprovement();
      return { params: EVOLVE_APP, body: { slug: EVOLVE_APP.slug, version: `1.1.${++counter}` }, headers: bearer(dev), status: 201 };
    },
  }),
};

/** The evolve app of these fixtures (its manifest declares a header slot with a token), released once. */
const EVOLVE_APP = { namespace: 'cell-acme', slug: 'dry-evolve' };
const EVOLVE_PROPOSAL = { title: 'Dry', changes: [{ kind: 'token', token: '--accent-hue', value: 10 }] };
let evolveReleased: Promise<void> | undefined;
const evolveApp = () =>
  (evolveReleased ??= release(svc, dev, { ...EVOLVE_APP, version: '1.0.0', manifest: EVOLVE_MANIFEST, files: evolveFiles() }));

async function evolveFeedback(): Promise<void> {
  await evolveApp();
  const res = await svc.call('POST', '/api/v1/developer/log/cell-acme/events', {
    body: { slug: EVOLVE_APP.slug, events: [{ kind: 'feedback', topic: 'header' }] },
    headers: bearer(dev),
  });
  expect(res.status).toBe(201);
}

/** A new open proposal of the evolve app. */
async function evolveProposal(): Promise<string> {
  await evolveApp();
  const res = await svc.call('POST', '/api/v1/developer/evolve/cell-acme/proposals', {
    body: { ...EVOLVE_PROPOSAL, slug: EVOLVE_APP.slug },
    headers: bearer(dev),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}

/** A new improvement of the evolve app (a proposal applied from dana's web login). */
async function evolveImprovement(): Promise<string> {
  const id = await evolveProposal();
  const res = await svc.call('POST', `/api/v1/developer/evolve/cell-acme/proposals/${id}/apply`, { headers: await web() });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.improvement;
}

/** Each evolve fixture also on its legacy paths: `improve/…` as is, the per-app path with the app there instead of in the body. */
function withLegacyEvolvePaths(fixtures: Record<string, () => Promise<WriteCase>>): Record<string, () => Promise<WriteCase>> {
  return Object.fromEntries(
    Object.entries(fixtures).flatMap(([id, fixture]) => {
      const [improve, bySlug] = legacyEvolveIds(id) as [string, string];
      const perApp = async (): Promise<WriteCase> => {
        const c = await fixture();
        if (c.body === undefined) return c;
        const { slug: _, ...body } = c.body as Record<string, unknown>;
        return { ...c, body };
      };
      return [
        [id, fixture],
        [improve, fixture],
        [bySlug, perApp],
      ];
    }),
  );
}

const web = async () => browser(await signIn(svc, 'dana'), svc);

/** A new branch of Acme's definitions. */
async function branch(): Promise<string> {
  await defineSalesActions();
  const name = unique('branch');
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/branches', { body: { name }, headers: bearer(dev) })).status).toBe(
    201,
  );
  return name;
}

/** An OPEN proposal of a new branch holding these object types. */
async function proposal(types: object[] = []): Promise<string> {
  const name = await branch();
  const S = '/api/v1/developer/semantic/cell-acme';
  if (types.length > 0)
    expect((await svc.call('POST', `${S}/types?branch=${name}`, { body: { types }, headers: bearer(dev) })).status).toBe(200);
  const res = await svc.call('POST', `${S}/branches/${name}/proposals`, { body: { title: 'Dry' }, headers: bearer(dev) });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

/** The SALES types and their action types (idempotent). */
async function defineSalesActions() {
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) })).status).toBe(200);
  const res = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', { body: ACTIONS, headers: bearer(dev) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** POSTs that only compute (nothing to write, so no dry-run header); each must change nothing. */
/** Globex's developer key, once Globex has the sales types (the Acme definition is a write fixture of its own). */
let globex: string | undefined;
async function globexOntology() {
  if (!globex) {
    globex = await passwordKey(svc, 'gus');
    const res = await svc.call('POST', '/api/v1/developer/semantic/cell-globex/types', { body: SALES, headers: bearer(globex) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  return { ontology: 'cell-globex', objectType: 'sales.Order' };
}

let photos: Record<string, string> | undefined;
/** Globex's vision.Photo (a media property `image`) with the object p1, made once. */
async function photoProperty() {
  if (!photos) {
    await globexOntology();
    const photo = {
      apiName: 'vision.Photo',
      primaryKey: 'id',
      properties: { id: { dataType: { type: 'string' } }, image: { dataType: { type: 'mediaReference' } } },
    };
    const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-globex/types', {
      body: { types: [photo] },
      headers: bearer(globex!),
    });
    expect(defined.status, JSON.stringify(defined.body)).toBe(200);
    const created = await svc.call('POST', '/api/v1/ontologies/cell-globex/edits', {
      body: { edits: [{ type: 'create', objectType: 'vision.Photo', properties: { id: 'p1' } }] },
      headers: bearer(globex!),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    photos = { ontology: 'cell-globex', objectType: 'vision.Photo', property: 'image' };
  }
  return photos;
}

/** An OPEN upload session into p1's image, made for real, with the parts given put for real. */
async function photoUpload(sizeBytes: number, parts: Buffer[] = []) {
  const property = await photoProperty();
  const base = `/api/v1/ontologies/cell-globex/objectTypes/vision.Photo/media/image/uploads`;
  const res = await svc.call('POST', base, { body: { sizeBytes, mimeType: 'text/plain', primaryKey: 'p1' }, headers: bearer(globex!) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const uploadId: string = res.body.data.uploadId;
  for (const [i, part] of parts.entries()) {
    const put = await svc.call('PUT', `${base}/${uploadId}/parts/${i + 1}`, { rawBody: part, headers: bearer(globex!) });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  }
  return { ...property, uploadId };
}

const COMPUTE_ONLY: Record<string, () => Promise<WriteCase>> = {
  // Refused for every reader of the ontology, with the reason: nothing is written, no dry run (docs/app-developers/ontology-sql.md).
  syncOntologyDatabase: async () => ({ params: await globexOntology(), headers: bearer(globex!), status: 409 }),
  createOntologyDatabaseCredentials: async () => ({ params: await globexOntology(), headers: bearer(globex!), status: 409 }),
  dryRunAutomation: async () => ({ params: await automation(), headers: bearer(dev), status: 200 }),
  // Private networks are refused here (the default): the loopback endpoint is never reached.
  testDataConnection: async () => ({
    params: { namespace: 'cell-globex', connectionId: await newConnection() },
    headers: bearer(globex!),
    status: 422,
  }),
  evaluateWorkshopModule: async () => ({
    params: { rid: await workshopModule() },
    body: { page: 'main' },
    headers: bearer(dev),
    status: 200,
  }),
  // The codec endpoint only decodes; this api-role service has no payload key (no worker data folder): 409.
  adminDecodeTemporalPayloads: async () => ({ body: { payloads: [] }, headers: bearer(op), status: 409 }),
  estimateBillingCost: async () => ({ body: { computeMinutes: 10 }, headers: bearer(dev), status: 200 }),
  // Not an image: refused before the detector runs (test/api/vision/detect.test.ts runs it).
  detectVision: async () => ({ body: { not: 'an image' }, headers: bearer(dev), status: 400 }),
  callAppMcp: async () => {
    const slug = unique('dry-mcp-call');
    await released(slug);
    return {
      params: { namespace: 'cell-acme', slug },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { ...bearer(dev), accept: 'application/json, text/event-stream' },
      status: 200,
    };
  },
  testObjectSecurity: async () => ({
    params: await globexOntology(),
    body: { object: { number: 1, note: 'gus' }, attributes: { constructor: ['x'] } },
    headers: bearer(globex!),
    status: 200,
  }),
  searchObjects: async () => ({
    params: await globexOntology(),
    body: { where: { type: 'gt', field: 'amount', value: 1 } },
    headers: bearer(globex!),
    status: 200,
  }),
  aggregateObjects: async () => ({
    params: await globexOntology(),
    body: { aggregation: [{ type: 'count' }] },
    headers: bearer(globex!),
    status: 200,
  }),
  // An accepted stream never ends (its status is in the authorization matrix); a refused one shows it writes nothing.
  streamOntologySubscriptions: async () => ({
    params: { ns: (await globexOntology()).ontology },
    body: { requests: [{ objectSet: { type: 'base', objectType: 'sales.Missing' } }] },
    headers: bearer(globex!),
    status: 404,
  }),
  listEditsHistory: async () => {
    // In Globex: Acme's first definition belongs to the defineSemanticTypes fixture.
    const gus = bearer(await passwordKey(svc, 'gus'));
    expect((await svc.call('POST', '/api/v1/developer/semantic/cell-globex/types', { body: SALES, headers: gus })).status).toBe(200);
    return { params: { ontology: 'cell-globex', objectType: 'sales.Customer' }, body: { pageSize: 5 }, headers: gus, status: 200 };
  },
  loadObjectSet: async () => {
    await globexOntology();
    return {
      params: { ontology: 'cell-globex' },
      body: { objectSet: { type: 'base', objectType: 'sales.Order' } },
      headers: bearer(globex!),
      status: 200,
    };
  },
  aggregateObjectSet: async () => {
    await globexOntology();
    return {
      params: { ontology: 'cell-globex' },
      body: { objectSet: { type: 'base', objectType: 'sales.Order' }, aggregation: [{ type: 'count' }] },
      headers: bearer(globex!),
      status: 200,
    };
  },
  // A read over a type of its own (the write fixtures define SALES later); its SQL role is made here, before the snapshot.
  executeOntologySql: async () => {
    const probe = { types: [{ apiName: 'sql.Probe', primaryKey: 'id', properties: { id: { dataType: { type: 'string' } } } }] };
    expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: probe, headers: bearer(dev) })).status).toBe(200);
    const body = { query: 'SELECT count(*) FROM "sql.Probe"' };
    const probed = await svc.call('POST', '/api/v1/sqlQueries/executeOntology', { body, headers: bearer(dev) });
    expect(probed.status, JSON.stringify(probed.body)).toBe(200);
    return { body, headers: bearer(dev), status: 200 };
  },
};

/** The write operations (every method but GET, except the computing ones) the served document describes. */
function writeOperations(opts: { computeOnly?: boolean } = {}) {
  const ops = new Map<string, { method: string; path: string; parameters: { in: string; name: string }[] }>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'get') continue;
      if (operation.operationId in COMPUTE_ONLY !== (opts.computeOnly === true)) continue;
      ops.set(operation.operationId, { method: method.toUpperCase(), path, parameters: operation.parameters ?? [] });
    }
  }
  return ops;
}

function fill(path: string, params: Record<string, string> = {}): string {
  const filled = path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    expect(params, `the fixture gives no value for {${name}}`).toHaveProperty(name);
    return encodeURIComponent(params[name]!);
  });
  return filled;
}

describe('dry run of every write operation', () => {
  it('has a fixture for exactly the write operations of the OpenAPI document', () => {
    const documented = [...writeOperations().keys()].sort();
    expect(documented.length).toBeGreaterThan(0);
    expect(Object.keys(FIXTURES).sort()).toEqual(documented);
  });

  // Two snapshots of the whole database per operation: on a loaded machine four operations took longer than the 30 s default.
  it('computing POSTs take no dry-run header and change nothing', async () => {
    const computing = writeOperations({ computeOnly: true });
    expect([...computing.keys()].sort()).toEqual(Object.keys(COMPUTE_ONLY).sort());
    for (const [operationId, { method, path, parameters }] of computing) {
      expect(parameters).not.toContainEqual(expect.objectContaining({ in: 'header', name: 'x-svc-dry-run' }));
      const c = await COMPUTE_ONLY[operationId]!();
      const before = await snapshot();
      const res = await svc.call(method, fill(path, c.params), { body: c.body, headers: c.headers });
      expect(res.status, JSON.stringify(res.body)).toBe(c.status);
      expect(await snapshot()).toEqual(before);
    }
  }, 120_000);

  it('covers the outbox in the database snapshot (a workflow start would show)', async () => {
    expect(Object.keys(await snapshot())).toContain('table:outbox');
  });

  it.each(Object.keys(FIXTURES))(
    '%s: 202 with the plan, no change, no cookie, no outbox row; the real request then writes',
    async (operationId) => {
      const operation = writeOperations().get(operationId);
      expect(operation, `${operationId} is not a write operation of the document`).toBeDefined();
      const { method, path, parameters } = operation!;
      expect(parameters).toContainEqual(expect.objectContaining({ in: 'header', name: 'x-svc-dry-run' }));

      const c = await FIXTURES[operationId]!();
      const url = fill(path, c.params) + (c.query ?? '');
      const init = (extra: Record<string, string>) => ({
        ...(c.body === undefined ? {} : { body: c.body }),
        headers: { ...c.headers, ...extra },
      });

      const before = await snapshot();
      const outboxBefore = await outboxRows();
      const dry = await svc.call(method, url, init({ 'x-svc-dry-run': 'true' }));
      expect(dry.status, JSON.stringify(dry.body)).toBe(202);
      expect(dry.body.ok).toBe(true);
      expect(dry.body.data.dryRun).toBe(true);
      expect(dry.body.data).toHaveProperty('plan');
      expect(dry.headers.get('set-cookie')).toBeNull();
      expect(JSON.stringify(dry.body)).not.toMatch(/svc-dk-[0-9A-Za-z]{39}/); // no key is issued by a plan
      expect(await outboxRows()).toBe(outboxBefore);
      expect(await snapshot()).toEqual(before);

      await c.beforeReal?.();
      const real = await svc.call(method, url, init({}));
      expect(real.status, JSON.stringify(real.body)).toBe(c.status);
      if (!c.bare) expect(real.body.ok).toBe(true);
      expect(await snapshot()).not.toEqual(before);
      expect(await outboxRows()).toBe(outboxBefore + (c.enqueues ?? 0));
      if (c.setsCookie) expect(real.headers.get('set-cookie')).not.toBeNull();
    },
  );
});
