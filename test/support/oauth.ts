import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { browser, signIn } from './identity.ts';
import type { TestService } from './service.ts';

// The OAuth flow of an MCP host over plain HTTP (the browser step as the page's own API calls):
// for tests that need an app token without Chromium.

export const CALLBACK = 'http://127.0.0.1:9/callback';
export const VERIFIER = 'v'.repeat(43);

/** A freshly registered host's authorization request for the app's MCP endpoint. */
export async function authorizationRequest(svc: TestService, app: { namespace: string; slug: string }) {
  const reg = await svc.call('POST', '/api/v1/oauth/register', { body: { redirect_uris: [CALLBACK] } });
  expect(reg.status).toBe(201);
  return {
    response_type: 'code',
    client_id: reg.body.client_id as string,
    redirect_uri: CALLBACK,
    code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${svc.url}/api/v1/developer/apps/${app.namespace}/${app.slug}/mcp`,
  };
}

/** The person (`login`) approves the request: the code sent back. */
export async function approvedCode(svc: TestService, login: string, request: Awaited<ReturnType<typeof authorizationRequest>>) {
  const cookie = await signIn(svc, login);
  const res = await svc.call('POST', '/api/v1/oauth/authorization', {
    body: { ...request, decision: 'approve' },
    headers: browser(cookie, svc),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return new URL(res.body.data.redirectTo).searchParams.get('code')!;
}

/** The token endpoint's body for a code. */
export const codeGrant = (clientId: string, code: string) => ({
  grant_type: 'authorization_code',
  code,
  client_id: clientId,
  redirect_uri: CALLBACK,
  code_verifier: VERIFIER,
});

/** An app token of `login` for the app, through the whole flow. */
export async function appToken(svc: TestService, login: string, app: { namespace: string; slug: string }): Promise<string> {
  const request = await authorizationRequest(svc, app);
  const code = await approvedCode(svc, login, request);
  const res = await svc.call('POST', '/api/v1/oauth/token', { body: codeGrant(request.client_id, code) });
  expect(res.status).toBe(200);
  return res.body.access_token;
}
