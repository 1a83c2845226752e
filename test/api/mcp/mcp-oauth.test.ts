import http from 'node:http';
import type net from 'node:net';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../support/browser.ts';
import { release } from '../../support/hosting.ts';
import { bearer, PASSWORD, passwordKey, resetRateLimits, browser as sameSite, seedCompanies, signIn } from '../../support/identity.ts';
import { authorizationRequest, codeGrant } from '../../support/oauth.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// An MCP client of @modelcontextprotocol/sdk against the running service: it meets the 401,
// discovers the authorization server from WWW-Authenticate, registers itself, sends the person
// to the authorization page (signed in and approved in Chromium), redeems the code with PKCE,
// then lists the app's tools, prompts and UI resource and calls a tool. Then refresh rotation,
// revocation, and the token's limits (one app, member level).

let svc: TestService;
let chromium: Browser;
let dev: string;
/** The host's redirect address: a loopback server that records the codes it is sent. */
let callback: http.Server;
let callbackUrl: string;
const arrivals: URLSearchParams[] = [];

const skill = (name: string) => ({
  path: `skills/${name}/SKILL.md`,
  encoding: 'utf8' as const,
  content: `---\nname: ${name}\ndescription: Find ${name}\n---\nAsk for the customer, then list the open orders.\n`,
});

beforeAll(async () => {
  callback = http.createServer((req, res) => {
    arrivals.push(new URL(req.url!, 'http://127.0.0.1').searchParams);
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>back at the host</title>');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as net.AddressInfo).port}/callback`;
  svc = await startTestService();
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  // The data the tool reads: Acme's sales types and three orders.
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) })).status).toBe(200);
  const orders = [
    { number: 1, amount: 5 },
    { number: 2, amount: 40 },
    { number: 3, amount: 12.5 },
  ];
  expect(
    (await svc.call('POST', '/api/v1/ontologies/cell-acme/objects/sales.Order/import', { body: orders, headers: bearer(dev) })).status,
  ).toBe(200);
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'orders',
    version: '1.0.0',
    manifest: {
      mcpUi: 'widget.html',
      semantic: { types: ['sales.Order'], actions: [], write: [] },
      exports: [
        {
          name: 'big_orders',
          title: 'Big orders',
          kind: 'query',
          type: 'sales.Order',
          input: { min: { type: 'real', required: true } },
          where: { amount: { gt: '=input.min' } },
          select: ['number', 'amount'],
          sort: ['-amount'],
        },
      ],
    },
    files: [
      { path: 'index.html', encoding: 'utf8', content: '<!doctype html><p>orders</p>' },
      { path: 'widget.html', encoding: 'utf8', content: '<!doctype html><p>order widget</p>' },
      skill('open-orders'),
    ],
  });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'other', version: '1.0.0' });
  chromium = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await chromium?.close();
  await svc?.close();
  callback?.close();
});
beforeEach(() => resetRateLimits(svc));

const mcpUrl = () => `${svc.url}/api/v1/developer/apps/cell-acme/orders/mcp`;

/** What an MCP host keeps: its registration, the PKCE verifier and the tokens. */
class HostProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return callbackUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test host',
      redirect_uris: [callbackUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The browser step: sign in on the platform, approve the host, and land on the host's callback. */
async function approveInBrowser(url: URL, login: string, decision: 'Approve' | 'Deny' = 'Approve'): Promise<URLSearchParams> {
  const before = arrivals.length;
  const context = await chromium.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url.href);
    await page.waitForURL((u) => u.pathname === '/signin');
    await page.getByLabel('Username or email').fill(login);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/oauth/authorize');
    await expect.poll(() => page.locator('#client').textContent()).toBe('Test host');
    expect(await page.locator('#app').textContent()).toBe('App orders (cell-acme/orders)');
    expect(await page.locator('#role').textContent()).toBe('member');
    await page.getByRole('button', { name: decision }).click();
    await page.waitForURL((u) => u.href.startsWith(callbackUrl));
  } finally {
    await context.close();
  }
  expect(arrivals.length).toBe(before + 1);
  return arrivals.at(-1)!;
}

/** A host that has been through the whole flow: a connected client and its provider. */
async function authorizedHost(login = 'mo') {
  const provider = new HostProvider();
  const first = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider });
  await expect(new Client({ name: 'test-host', version: '1.0.0' }).connect(first)).rejects.toThrow(UnauthorizedError);
  expect(provider.client?.client_id).toMatch(/^ocl_/);
  const back = await approveInBrowser(provider.authorizationUrl!, login);
  expect(back.get('iss')).toBe(svc.url);
  await first.finishAuth(back.get('code')!);
  expect(provider.saved?.access_token).toMatch(/^svc-ot-/);
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider }));
  return { client, provider };
}

describe('an MCP host and OAuth', () => {
  it('answers 401 with a WWW-Authenticate pointing at the protected-resource metadata, and that at the authorization server', async () => {
    const res = await svc.call('POST', '/api/v1/developer/apps/cell-acme/orders/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(res.status).toBe(401);
    const metadataUrl = `${svc.url}/.well-known/oauth-protected-resource/api/v1/developer/apps/cell-acme/orders/mcp`;
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}", scope="app"`);
    const resource = await (await fetch(metadataUrl)).json();
    expect(resource).toEqual({
      resource: mcpUrl(),
      authorization_servers: [svc.url],
      bearer_methods_supported: ['header'],
      scopes_supported: ['app'],
    });
    const server = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json();
    expect(server).toMatchObject({
      issuer: svc.url,
      authorization_endpoint: `${svc.url}/oauth/authorize`,
      token_endpoint: `${svc.url}/api/v1/oauth/token`,
      registration_endpoint: `${svc.url}/api/v1/oauth/register`,
      revocation_endpoint: `${svc.url}/api/v1/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('lets browser-based hosts call the MCP and OAuth endpoints from their own origin', async () => {
    const mcp = await fetch(mcpUrl(), {
      method: 'OPTIONS',
      headers: {
        origin: 'https://inspector.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'mcp-protocol-version',
      },
    });
    expect(mcp.status).toBe(204);
    expect(mcp.headers.get('access-control-allow-origin')).toBe('*');
    expect(mcp.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
    const unauthorized = await fetch(mcpUrl(), { method: 'POST', headers: { origin: 'https://inspector.example' } });
    expect(unauthorized.headers.get('access-control-expose-headers')).toContain('www-authenticate');
    const token = await fetch(`${svc.url}/api/v1/oauth/token`, { method: 'OPTIONS', headers: { origin: 'https://inspector.example' } });
    expect([token.status, token.headers.get('access-control-allow-origin')]).toEqual([204, '*']);
  });

  it('completes the flow, lists the app’s tools, prompts and UI resource, and calls a tool', async () => {
    const { client } = await authorizedHost();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => [t.name, t.annotations?.readOnlyHint])).toEqual([['big_orders', true]]);
      expect(tools[0]!.inputSchema).toMatchObject({ type: 'object', properties: { min: { type: 'number' } }, required: ['min'] });

      const bad = await client.callTool({ name: 'big_orders', arguments: { min: 'ten' } });
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toMatchObject({ code: 'invalid_payload', details: { problems: [{ path: 'input.min' }] } });
      // The query reads Acme's orders as the person: amount over min, largest first, the selected properties.
      const call = await client.callTool({ name: 'big_orders', arguments: { min: 10 } });
      expect(call.isError).toBeFalsy();
      const found = (call.structuredContent as { data: Record<string, unknown>[] }).data;
      expect(found.map((o) => [o.number, o.amount])).toEqual([
        [2, 40],
        [3, 12.5],
      ]);
      expect(found[0]).not.toHaveProperty('note');

      const { prompts } = await client.listPrompts();
      expect(prompts).toEqual([{ name: 'open-orders', description: 'Find open-orders' }]);
      const prompt = await client.getPrompt({ name: 'open-orders' });
      expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: expect.stringContaining('list the open orders') });
      const { resources } = await client.listResources();
      expect(resources).toEqual([{ uri: 'ui://cell-acme/orders/widget.html', name: 'App orders UI', mimeType: 'text/html' }]);
      const read = await client.readResource({ uri: 'ui://cell-acme/orders/widget.html' });
      expect(read.contents[0]).toMatchObject({ text: '<!doctype html><p>order widget</p>' });
    } finally {
      await client.close();
    }
  });

  it('makes a developer’s token member-level and good for its one app only', async () => {
    const { client, provider } = await authorizedHost('dana');
    await client.close();
    const token = provider.saved!.access_token;
    const me = await svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(token) });
    expect(me.body.data).toMatchObject({ identity: { username: 'dana' }, role: 'member', app: { slug: 'orders' } });
    expect((await svc.call('GET', '/api/v1/developer/apps/cell-acme/other/apis', { headers: bearer(token) })).status).toBe(403);
    expect((await svc.call('GET', '/api/v1/developer/apps/cell-acme/orders/apis?channel=test', { headers: bearer(token) })).status).toBe(
      200,
    );
    // Sharing needs the developer role, which a token never has; developer-only interfaces and ticket renewal are not for it.
    const share = await svc.call('POST', '/api/v1/developer/shares', { body: { audience: 'company' }, headers: bearer(token) });
    expect([share.status, share.body.error?.code], JSON.stringify(share.body)).toEqual([403, 'forbidden']);
    expect((await svc.call('GET', '/api/v1/developer/log/cell-acme/events?slug=orders', { headers: bearer(token) })).status).toBe(403);
    expect((await svc.call('POST', '/api/v1/developer/apps/cell-acme/orders/tickets', { headers: bearer(token) })).status).toBe(401);
    // Stored as hashes only.
    const rows = await svc.database.db.selectFrom('oauth_tokens').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('rotates refresh tokens, and revocation ends the grant', async () => {
    const { client, provider } = await authorizedHost();
    await client.close();
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    const clientId = provider.client!.client_id;
    const old = provider.saved!;
    const refreshed = await fetch(
      `${svc.url}/api/v1/oauth/token`,
      form({ grant_type: 'refresh_token', refresh_token: old.refresh_token!, client_id: clientId }),
    );
    expect(refreshed.status).toBe(200);
    const pair = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(pair).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'app' });
    // The old pair stopped working; the old refresh token is refused in the OAuth shape.
    expect((await svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(old.access_token) })).status).toBe(401);
    const again = await fetch(
      `${svc.url}/api/v1/oauth/token`,
      form({ grant_type: 'refresh_token', refresh_token: old.refresh_token!, client_id: clientId }),
    );
    expect([again.status, ((await again.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);

    expect((await svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(pair.access_token) })).status).toBe(200);
    const revoked = await fetch(`${svc.url}/api/v1/oauth/revoke`, form({ token: pair.refresh_token, client_id: clientId }));
    expect(revoked.status).toBe(200);
    expect((await svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(pair.access_token) })).status).toBe(401);
    // Unknown tokens are no error (RFC 7009).
    expect((await fetch(`${svc.url}/api/v1/oauth/revoke`, form({ token: 'nonsense' }))).status).toBe(200);
  });

  it('redeems a code once, for its client, redirect address and PKCE verifier only', async () => {
    const cookie = await signIn(svc, 'mo');
    const request = { ...(await authorizationRequest(svc, { namespace: 'cell-acme', slug: 'orders' })), state: 's-1' };
    const approve = (body: object) => svc.call('POST', '/api/v1/oauth/authorization', { body, headers: sameSite(cookie, svc) });
    const decided = await approve({ ...request, decision: 'approve' });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    const back = new URL(decided.body.data.redirectTo);
    expect([back.searchParams.get('state'), back.searchParams.get('iss')]).toEqual(['s-1', svc.url]);
    // Sent as a form, as hosts do.
    const token = (fields: Record<string, string>) =>
      svc.call('POST', '/api/v1/oauth/token', {
        rawBody: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const grant = codeGrant(request.client_id, back.searchParams.get('code')!);
    const wrong = await token({ ...grant, code_verifier: 'w'.repeat(50) });
    expect([wrong.status, wrong.body.error]).toEqual([400, 'invalid_grant']);
    // The failed attempt used the code up.
    expect((await token(grant)).body.error).toBe('invalid_grant');
    // A code is its client's only.
    const other = await authorizationRequest(svc, { namespace: 'cell-acme', slug: 'orders' });
    const stolen = new URL((await approve({ ...request, decision: 'approve' })).body.data.redirectTo).searchParams.get('code')!;
    expect((await token(codeGrant(other.client_id, stolen))).body.error).toBe('invalid_grant');

    // A redirect address the client did not register is refused on the page, never redirected to.
    const foreign = await approve({ ...request, redirect_uri: 'https://evil.example/cb', decision: 'approve' });
    expect([foreign.status, foreign.body.error.details.oauthError]).toEqual([400, 'invalid_redirect_uri']);
    const badUri = await svc.call('POST', '/api/v1/oauth/register', { body: { redirect_uris: ['http://evil.example/cb'] } });
    expect([badUri.status, badUri.body.error]).toEqual([400, 'invalid_redirect_uri']);
    const typo = await svc.call('POST', '/api/v1/oauth/register', { body: { redirect_uris: [callbackUrl], client_nam: 'x' } });
    expect([typo.status, typo.body.error]).toEqual([400, 'invalid_request']);
    // Only the MCP address of an app this service hosts.
    const elsewhere = await approve({ ...request, resource: 'https://other.example/mcp', decision: 'approve' });
    expect(elsewhere.body.error.details.oauthError).toBe('invalid_target');
  });

  it('sends access_denied back when the person denies', async () => {
    const provider = new HostProvider();
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider });
    await expect(new Client({ name: 'test-host', version: '1.0.0' }).connect(transport)).rejects.toThrow(UnauthorizedError);
    const back = await approveInBrowser(provider.authorizationUrl!, 'mo', 'Deny');
    expect([back.get('error'), back.get('code')]).toEqual(['access_denied', null]);
  });
});
