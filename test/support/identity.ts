import { expect } from 'vitest';
import { forgetRefusedWindows } from '../../domain/rate-limit/index.ts';
import { type HttpService, TEST_OPERATOR, type TestService } from './service.ts';

// Builds companies and people through the real API, as an operator would.

export const PASSWORD = 'correct-horse-battery';

export async function operatorKey(svc: HttpService): Promise<string> {
  const res = await svc.call('POST', '/api/v1/developer/password-tokens', { body: TEST_OPERATOR });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.key;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export async function createOrganization(svc: HttpService, opKey: string, cellId: string, name = cellId) {
  const res = await svc.call('POST', '/api/v1/admin/organizations', { body: { cellId, name }, headers: bearer(opKey) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

export async function createUser(
  svc: HttpService,
  opKey: string,
  username: string,
  licenses: { cellId: string; role: 'developer' | 'member'; admin?: boolean }[],
  extra: Record<string, unknown> = {},
) {
  const res = await svc.call('POST', '/api/v1/admin/users', {
    body: { username, email: `${username}@example.com`, password: PASSWORD, emailVerified: true, licenses, ...extra },
    headers: bearer(opKey),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: string; username: string };
}

export async function passwordKey(svc: HttpService, login: string, cellId?: string, password = PASSWORD): Promise<string> {
  const res = await svc.call('POST', '/api/v1/developer/password-tokens', { body: { login, password, ...(cellId ? { cellId } : {}) } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.key;
}

/** Signs in like the browser pages do (same-origin request) and returns the cookie header. */
export async function signIn(svc: HttpService, login: string, password = PASSWORD): Promise<string> {
  const res = await svc.call('POST', '/api/v1/web/sessions', { body: { login, password }, headers: { origin: svc.addresses.baseUrl } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const setCookie = res.headers.get('set-cookie')!;
  return setCookie.split(';')[0]!;
}

/** Headers a same-origin browser request with that cookie carries. */
export const browser = (cookie: string, svc: HttpService) => ({ cookie, origin: svc.addresses.baseUrl, 'sec-fetch-site': 'same-origin' });

/** The cast of most tests: two companies and people with every kind of membership. */
const CAST = {
  dana: [{ cellId: 'cell-acme', role: 'developer' }],
  mo: [{ cellId: 'cell-acme', role: 'member' }],
  multi: [
    { cellId: 'cell-acme', role: 'member' },
    { cellId: 'cell-globex', role: 'developer' },
  ],
  gus: [{ cellId: 'cell-globex', role: 'developer' }],
} as const;

/** Creates Acme (cell-acme), Globex (cell-globex) and the cast; returns the operator's key and account ids. */
export async function seedCompanies(svc: HttpService) {
  const op = await operatorKey(svc);
  await createOrganization(svc, op, 'cell-acme', 'Acme');
  await createOrganization(svc, op, 'cell-globex', 'Globex');
  const accounts: Record<keyof typeof CAST, string> = { dana: '', mo: '', multi: '', gus: '' };
  for (const [name, orgs] of Object.entries(CAST) as [keyof typeof CAST, (typeof CAST)[keyof typeof CAST]][]) {
    accounts[name] = (
      await createUser(
        svc,
        op,
        name,
        orgs.map((o) => ({ ...o })),
      )
    ).id;
  }
  return { op, accounts };
}

/** Every request of a test file comes from 127.0.0.1: each test starts in a fresh rate-limit window. */
export async function resetRateLimits(svc: TestService): Promise<void> {
  await svc.database.db.deleteFrom('rate_limit_hits').execute();
  forgetRefusedWindows(svc.deps.db);
}
