import { expect } from 'vitest';
import { systemClock } from '../../domain/deps.ts';
import { authenticateAppToken } from '../../domain/oauth/authenticate-app-token.ts';
import { mcpPath } from '../../domain/oauth/mcp-resource.ts';
import { type CallerKind, callerKindOf } from '../../domain/policy/index.ts';
import { injected, rawGet, release } from './hosting.ts';
import { bearer, browser, createUser, passwordKey, seedCompanies, signIn } from './identity.ts';
import { appToken, authorizationRequest } from './oauth.ts';
import { SALES } from './ontology.ts';
import { ACTIONS } from './ontology-actions.ts';
import type { TestService } from './service.ts';

// One credential of every caller kind, built through the real API, for the route × principal
// matrix (test/api/access-matrix.test.ts). Company A is cell-acme (its app `matrix`, published,
// reading the SALES types and running sales.addCustomer, with a workflow API `run`); company B is
// cell-globex, whose people reach A's app only through shares. Groups and markings: gil (B) reaches
// A's app only as a member of A's group `Matrix cleared`, which A's app is shared with; mo (A's
// member) is in that group too, and the group holds USE on the matrix marking, so mo and gil are
// cleared for it only through the group (dana holds it directly; ed and vic are not cleared).

export const COMPANY_A = 'cell-acme';
export const APP = { namespace: COMPANY_A, slug: 'matrix' };
/** A second app of company A: its ticket is the "ticket of another app". */
export const OTHER_APP = { namespace: COMPANY_A, slug: 'matrix-other' };

export interface Caller {
  /** Unique, for the mismatch table. */
  name: string;
  kind: CallerKind;
  /** The company the credential acts for: A, B, or the platform operators' own. */
  company: 'A' | 'B' | 'platform';
  /** The app a ticket or app token admits. */
  app?: string;
  /** How the credential is sent (Bearer, or the session cookie with the same-origin headers a browser sends). */
  headers: Record<string, string>;
}

/** Things of company A that exist, for the path parameters, queries and bodies of the matrix. */
export interface Targets {
  /** An agent key made only to be the target of revokeAgentKey. */
  spareAgentKeyId: string;
  /** A member of A made only to be the target of the admin routes. */
  spareAccountId: string;
  /** A group of A with spare as its member, for the group routes. */
  groupId: string;
  /** A marking category of A and a marking in it (dana its ADMINISTER; the group `Matrix cleared` USE), for the marking routes. */
  categoryId: string;
  markingId: string;
  /** A member of A imported (pending), for reissueMemberInvitation. */
  pendingAccountId: string;
  userCode: string;
  shareId: string;
  resourceLinkId: string;
  feedbackId: string;
  objectSetRid: string;
  branch: string;
  proposalId: string;
  /** A registered OAuth host's authorization request for the app's MCP address. */
  authorization: Record<string, string>;
  /** A media set of A (schema any; only A's developers have a role on it) with one item and an open transaction. */
  mediaSetRid: string;
  mediaItemRid: string;
  mediaTransactionId: string;
  /** An application module of A (open to A's company, version 1 published; page `main` with auto-refresh). */
  moduleRid: string;
}

export interface PrincipalFixture {
  callers: Caller[];
  targets: Targets;
}

const ok = (res: { status: number; body: unknown }, status = 200) => expect(res.status, JSON.stringify(res.body)).toBe(status);

/** Opens an app page with a signed-in browser and returns the ticket the page carries. */
async function ticketOf(url: string, cookie: string): Promise<string> {
  const page = await rawGet(url, { cookie });
  expect(page.status, page.text).toBe(200);
  return injected(page.text).ticket;
}

export async function seedPrincipals(svc: TestService): Promise<PrincipalFixture> {
  const { op } = await seedCompanies(svc);
  // B's people who reach A's app through shares only; gus (B's developer) has none, so he stays a pure outsider.
  await createUser(svc, op, 'ed', [{ cellId: 'cell-globex', role: 'member' }]);
  const vic = await createUser(svc, op, 'vic', [{ cellId: 'cell-globex', role: 'member' }]);
  const gil = await createUser(svc, op, 'gil', [{ cellId: 'cell-globex', role: 'member' }]);
  const mo = await svc.call('GET', '/api/v1/admin/users/me', { headers: bearer(await passwordKey(svc, 'mo')) });
  ok(mo);
  const spare = await createUser(svc, op, 'spare', [{ cellId: COMPANY_A, role: 'member' }]);
  const dev = await passwordKey(svc, 'dana');
  const call = (method: string, path: string, body?: unknown, key = dev) =>
    svc.call(method, path, { ...(body === undefined ? {} : { body }), headers: bearer(key) });

  // Data for the data routes: the types, their actions, one customer and one order.
  ok(await call('POST', `/api/v1/developer/semantic/${COMPANY_A}/types`, SALES));
  ok(await call('POST', `/api/v1/developer/semantic/${COMPANY_A}/actionTypes`, ACTIONS));
  const created = await call('POST', `/api/v1/ontologies/${COMPANY_A}/edits`, {
    edits: [
      { type: 'create', objectType: 'sales.Customer', properties: { id: 'c1', name: 'First' } },
      { type: 'create', objectType: 'sales.Order', properties: { number: 1, amount: 10 } },
    ],
  });
  ok(created);

  const workflow = { steps: [{ id: 'people', kind: 'use', capability: 'platform.accounts' }] };
  const semantic = { types: ['sales.Customer', 'sales.Order'], actions: ['sales.addCustomer'], write: ['sales.Customer'] };
  // Both register `modeling`: the world-model routes admit a company's app tickets only then.
  await release(svc, dev, { ...APP, version: '1.0.0', manifest: { sdk: ['semantic', 'modeling'], semantic, workflow } });
  await release(svc, dev, { ...OTHER_APP, version: '1.0.0', manifest: { sdk: ['modeling'] } });

  // Shares: ed by name (editor), a public link (vic opens it: viewer), and a Viewer grant on the
  // app's resource for vic, through which an MCP host gets vic's app token (viewer).
  ok(await call('POST', '/api/v1/developer/shares', { ...APP, audience: 'users', account: 'ed' }), 201);
  const link = await call('POST', '/api/v1/developer/shares', { ...APP, audience: 'public' });
  ok(link, 201);
  const appRid = `ri.workshop.svc.app.${APP.namespace}.${APP.slug}`;
  ok(await call('POST', `/api/v1/filesystem/resources/${appRid}/roles/add`, { principal: vic.id, role: 'viewer' }));
  // gil's only way in: a users share naming a group he is a live member of.
  const cleared = await call('POST', '/api/v1/admin/groups', { name: 'Matrix cleared' });
  ok(cleared, 201);
  ok(await call('POST', `/api/v1/admin/groups/${cleared.body.data.id}/groupMembers/add`, { principalIds: [gil.id, mo.body.data.id] }));
  ok(await call('POST', '/api/v1/developer/shares', { ...APP, audience: 'users', account: cleared.body.data.id }), 201);

  const cookies = {
    dana: await signIn(svc, 'dana'),
    mo: await signIn(svc, 'mo'),
    ed: await signIn(svc, 'ed'),
    vic: await signIn(svc, 'vic'),
    gil: await signIn(svc, 'gil'),
  };
  const appUrl = (app: { namespace: string; slug: string }) => `${svc.addresses.productionBase}/${app.namespace}/apps/${app.slug}`;
  const tickets = {
    developer: await ticketOf(appUrl(APP), cookies.dana),
    member: await ticketOf(appUrl(APP), cookies.mo),
    editor: await ticketOf(appUrl(APP), cookies.ed),
    viewer: await ticketOf(link.body.data.url, cookies.vic),
    group: await ticketOf(appUrl(APP), cookies.gil),
    otherApp: await ticketOf(appUrl(OTHER_APP), cookies.dana),
  };
  const tokens = { member: await appToken(svc, 'mo', APP), viewer: await appToken(svc, 'vic', APP) };

  const agentKey = async (agentId: string, restrictions?: object) => {
    const res = await call('POST', `/api/v1/developer/agent-keys/${COMPANY_A}`, { agentId, ...(restrictions ? { restrictions } : {}) });
    ok(res, 201);
    return res.body.data as { key: string; keyId: string };
  };
  const readOnlyAgent = await agentKey('reader');
  const restrictedAgent = await agentKey('writer', {
    operations: ['api:use-ontologies-read', 'api:use-ontologies-write'],
    objectTypes: ['sales.Customer'],
    actionTypes: ['sales.addCustomer'],
  });

  const callers: Caller[] = [
    { name: 'anonymous', kind: 'anonymous', company: 'A', headers: {} },
    { name: 'member key', kind: 'member-key', company: 'A', headers: bearer(await passwordKey(svc, 'mo')) },
    { name: 'developer key', kind: 'developer-key', company: 'A', headers: bearer(dev) },
    { name: 'agent key (read-only)', kind: 'agent-key', company: 'A', headers: bearer(readOnlyAgent.key) },
    { name: 'agent key (restricted)', kind: 'agent-key-restricted', company: 'A', headers: bearer(restrictedAgent.key) },
    // Platform staff act for the platform company, never for A.
    { name: 'operator key', kind: 'operator-key', company: 'platform', headers: bearer(op) },
    { name: 'developer session', kind: 'developer-session', company: 'A', headers: browser(cookies.dana, svc) },
    { name: 'member session', kind: 'member-session', company: 'A', headers: browser(cookies.mo, svc) },
    { name: 'developer ticket', kind: 'developer-ticket', company: 'A', app: APP.slug, headers: bearer(tickets.developer) },
    { name: 'member ticket', kind: 'member-ticket', company: 'A', app: APP.slug, headers: bearer(tickets.member) },
    { name: 'editor ticket (B, named share)', kind: 'editor-ticket', company: 'A', app: APP.slug, headers: bearer(tickets.editor) },
    { name: 'editor ticket (B, group share)', kind: 'editor-ticket', company: 'A', app: APP.slug, headers: bearer(tickets.group) },
    { name: 'viewer ticket (B, public link)', kind: 'viewer-ticket', company: 'A', app: APP.slug, headers: bearer(tickets.viewer) },
    { name: 'member app token', kind: 'member-app-token', company: 'A', app: APP.slug, headers: bearer(tokens.member) },
    { name: 'viewer app token (B)', kind: 'viewer-app-token', company: 'A', app: APP.slug, headers: bearer(tokens.viewer) },
    // The two cross-scope callers.
    { name: "B's developer key", kind: 'developer-key', company: 'B', headers: bearer(await passwordKey(svc, 'gus')) },
    {
      name: 'developer ticket of another app',
      kind: 'developer-ticket',
      company: 'A',
      app: OTHER_APP.slug,
      headers: bearer(tickets.otherApp),
    },
  ];
  await assertRoles(svc, callers);

  // Targets the matrix names (each made here, so no matrix request depends on another's effect).
  const imported = await call('POST', '/api/v1/developer/members/import', [{ email: 'pending@example.com' }]);
  ok(imported);
  const device = await svc.call('POST', '/api/v1/developer/device-codes', { body: {} });
  ok(device, 201);
  const companyShare = await call('POST', '/api/v1/developer/shares', { ...APP, audience: 'company' });
  ok(companyShare, 201);
  const resourceLink = await call('POST', `/api/v1/filesystem/resources/${appRid}/links`, {});
  ok(resourceLink, 201);
  const feedback = await call('POST', `/api/v1/developer/log/${COMPANY_A}/events`, {
    slug: APP.slug,
    events: [{ kind: 'feedback', topic: 'matrix' }],
  });
  ok(feedback, 201);
  const objectSet = await call('POST', `/api/v1/ontologies/${COMPANY_A}/objectSets/createTemporary`, {
    objectSet: { type: 'base', objectType: 'sales.Customer' },
  });
  ok(objectSet);
  ok(await call('POST', `/api/v1/developer/semantic/${COMPANY_A}/branches`, { name: 'matrix' }), 201);
  const proposal = await call('POST', `/api/v1/developer/semantic/${COMPANY_A}/branches/matrix/proposals`, { title: 'Matrix' });
  ok(proposal, 201);
  const spareAgent = await agentKey('spare');
  const group = await call('POST', '/api/v1/admin/groups', { name: 'Matrix group' });
  ok(group, 201);
  ok(await call('POST', `/api/v1/admin/groups/${group.body.data.id}/groupMembers/add`, { principalIds: [spare.id] }));
  const category = await call('POST', '/api/v1/admin/markingCategories', { name: 'Matrix category', categoryType: 'CONJUNCTIVE' });
  ok(category, 201);
  const me = await call('GET', '/api/v1/admin/users/me');
  ok(me);
  const marking = await call('POST', '/api/v1/admin/markings', {
    categoryId: category.body.data.id,
    name: 'Matrix marking',
    initialRoleAssignments: [
      { principalType: 'USER', principalId: me.body.data.id, role: 'ADMINISTER' },
      { principalType: 'GROUP', principalId: cleared.body.data.id, role: 'USE' },
    ],
  });
  ok(marking, 201);
  const mediaSet = await call('POST', '/api/v1/mediasets', { name: 'Matrix media', schema: 'any' });
  ok(mediaSet, 201);
  const mediaSetRid = mediaSet.body.data.rid;
  const mediaItem = await call('POST', `/api/v1/mediasets/${mediaSetRid}/items?mediaItemPath=matrix.json`, { matrix: true });
  ok(mediaItem, 201);
  const mediaTransaction = await call('POST', `/api/v1/mediasets/${mediaSetRid}/transactions`, {});
  ok(mediaTransaction, 201);
  const workshopModule = await call('POST', '/api/v1/workshop/modules', {
    name: 'Matrix module',
    definition: {
      title: 'Matrix',
      pages: [
        {
          id: 'main',
          title: 'Main',
          autoRefresh: { enabled: true },
          widgets: [{ id: 'customers', type: 'table', objectSet: { objectType: 'sales.Customer' } }],
        },
      ],
    },
  });
  ok(workshopModule, 201);
  const moduleRid = workshopModule.body.data.rid;
  ok(await call('POST', `/api/v1/workshop/modules/${moduleRid}/versions/1/publish`, {}));

  return {
    callers,
    targets: {
      spareAgentKeyId: spareAgent.keyId,
      spareAccountId: spare.id,
      groupId: group.body.data.id,
      categoryId: category.body.data.id,
      markingId: marking.body.data.id,
      pendingAccountId: imported.body.data.results[0].accountId,
      userCode: device.body.data.userCode,
      shareId: companyShare.body.data.share.id,
      resourceLinkId: resourceLink.body.data.id,
      feedbackId: feedback.body.data.ids[0],
      objectSetRid: objectSet.body.data.objectSetRid,
      branch: 'matrix',
      proposalId: proposal.body.data.id,
      authorization: await authorizationRequest(svc, APP),
      mediaSetRid,
      mediaItemRid: mediaItem.body.data.mediaItemRid,
      mediaTransactionId: mediaTransaction.body.data.transactionId,
      moduleRid,
    },
  };
}

/**
 * The fixture is what it claims: each ticket has its role in the app, each key its role, and each
 * app token is of its kind where it is accepted at all (its app's MCP endpoint: auth/me refuses it).
 */
async function assertRoles(svc: TestService, callers: Caller[]): Promise<void> {
  const role: Partial<Record<CallerKind, string>> = {
    'developer-ticket': 'developer',
    'member-ticket': 'member',
    'editor-ticket': 'editor',
    'viewer-ticket': 'viewer',
  };
  for (const caller of callers) {
    if (caller.kind === 'member-app-token' || caller.kind === 'viewer-app-token') {
      const token = caller.headers.authorization!.replace(/^Bearer /, '');
      const principal = await authenticateAppToken(svc.database.db, systemClock, token, mcpPath(APP));
      expect(callerKindOf(principal), caller.name).toBe(caller.kind);
      continue;
    }
    const expected = role[caller.kind];
    if (!expected) continue;
    const me = await svc.call('GET', '/api/v1/developer/auth/me', { headers: caller.headers });
    ok(me);
    expect(me.body.data, caller.name).toMatchObject({ role: expected, app: { slug: caller.app } });
  }
  const keyRole: Partial<Record<CallerKind, string>> = {
    'member-key': 'member',
    'developer-key': 'developer',
    'operator-key': 'developer',
  };
  for (const caller of callers) {
    if (!keyRole[caller.kind]) continue;
    const me = await svc.call('GET', '/api/v1/developer/me', { headers: caller.headers });
    ok(me);
    expect(me.body.data.role, caller.name).toBe(keyRole[caller.kind]);
  }
}
