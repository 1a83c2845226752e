import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// The reproductions of issue 28 finding 6 (U+0000 answered 500 on about ten routes), over real
// HTTP: each is now invalid_payload with the path of the string, or a 404 for app pages.

let svc: TestService;
let devKey: string;
const O = '/api/v1/ontologies/cell-acme';

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  devKey = await passwordKey(svc, 'dana');
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(devKey) })).status).toBe(200);
  const imported = await svc.call('POST', `${O}/objects/sales.Customer/import`, {
    body: [{ id: 'c1', name: 'Ada', tier: 1 }],
    headers: bearer(devKey),
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  await release(svc, devKey, { namespace: 'cell-acme', slug: 'notes', version: '1.0.0' });
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

/** The answer's status, code and the paths and codes of its problems. */
const refusal = (res: { status: number; body: any }) => ({
  status: res.status,
  code: res.body?.error?.code,
  problems: (res.body?.error?.details?.problems ?? []).map((p: { path: string; code: string }) => `${p.path} ${p.code}`),
});

describe('U+0000 and unpaired surrogates are invalid_payload with their path', () => {
  it('POST /api/v1/developer/password-tokens {"login":"mi\\u0000ke","password":"x"} (no credential; was 500)', async () => {
    const res = await svc.call('POST', '/api/v1/developer/password-tokens', { body: { login: 'mi\u0000ke', password: 'x' } });
    expect(refusal(res)).toEqual({ status: 400, code: 'invalid_payload', problems: ['login invalid_string'] });
    expect(res.body.error.details.problems[0].message).toMatch(/U\+0000 \(NUL\) at character 2/);
  });

  it('an unpaired surrogate in a JSON body (escaped, as JSON allows) is refused like U+0000', async () => {
    const res = await svc.call('POST', '/api/v1/developer/password-tokens', {
      rawBody: '{"login":"mike\\ud800","password":"x"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(refusal(res)).toEqual({ status: 400, code: 'invalid_payload', problems: ['login invalid_string'] });
    expect(res.body.error.details.problems[0].message).toMatch(/unpaired surrogate at character 4/);
    // A pair is a character like any other.
    const paired = await svc.call('POST', '/api/v1/developer/password-tokens', { body: { login: 'mike😀', password: 'x' } });
    expect([paired.status, paired.body.error.code]).toEqual([401, 'invalid_credentials']);
  });

  it('POST .../objects/sales.Customer/search with eq, startsWith and contains values holding U+0000 (was 500)', async () => {
    for (const where of [
      { type: 'eq', field: 'name', value: 'A\u0000' },
      { type: 'startsWith', field: 'name', value: '\u0000' },
      { type: 'and', value: [{ type: 'contains', field: 'name', value: 'x\u0000' }] },
    ]) {
      const res = await svc.call('POST', `${O}/objects/sales.Customer/search`, { body: { where }, headers: bearer(devKey) });
      const path = where.type === 'and' ? 'where.value[0].value' : 'where.value';
      expect(refusal(res), JSON.stringify(where)).toEqual({ status: 400, code: 'invalid_payload', problems: [`${path} invalid_string`] });
    }
  });

  it('GET .../objects/sales.Customer/c%00 (an object id with %00; was 500) names the path parameter', async () => {
    const res = await svc.call('GET', `${O}/objects/sales.Customer/c%00`, { headers: bearer(devKey) });
    expect(refusal(res)).toEqual({ status: 400, code: 'invalid_payload', problems: ['path.primaryKey invalid_string'] });
  });

  it('a query parameter with %00 (GET /api/v1/filesystem/principals?q=a%00; was 500)', async () => {
    const res = await svc.call('GET', '/api/v1/filesystem/principals?q=a%00', { headers: bearer(devKey) });
    expect(refusal(res)).toEqual({ status: 400, code: 'invalid_payload', problems: ['query.q invalid_string'] });
  });

  it('object import and edits with U+0000 in a property value and in a property name (was 500)', async () => {
    const imported = await svc.call('POST', `${O}/objects/sales.Customer/import`, {
      body: [{ id: 'c2', name: 'Bo\u0000b' }],
      headers: bearer(devKey),
    });
    expect(refusal(imported)).toEqual({ status: 400, code: 'invalid_payload', problems: ['[0].name invalid_string'] });
    const edited = await svc.call('POST', `${O}/edits`, {
      body: { edits: [{ type: 'create', objectType: 'sales.Customer', properties: { id: 'c3', 'na\u0000me': 'x' } }] },
      headers: bearer(devKey),
    });
    expect(refusal(edited)).toEqual({ status: 400, code: 'invalid_payload', problems: ['edits[0].properties["na\\u0000me"] invalid_key'] });
  });

  it('log event data holding U+0000 in a nested key and value (was 500)', async () => {
    const res = await svc.call('POST', '/api/v1/developer/log/cell-acme/events', {
      body: { slug: 'notes', events: [{ kind: 'usage', name: 'saved', data: { 'a\u0000': 1, list: [{ deep: 'v\u0000' }] } }] },
      headers: bearer(devKey),
    });
    expect(refusal(res)).toEqual({
      status: 400,
      code: 'invalid_payload',
      problems: ['events[0].data["a\\u0000"] invalid_key', 'events[0].data.list[0].deep invalid_string'],
    });
  });

  it('member import as CSV text holding U+0000 (was 500)', async () => {
    const csv = 'email,name\nann@example.com,An\u0000n\n';
    const res = await svc.call('POST', '/api/v1/developer/members/import', {
      rawBody: csv,
      headers: { ...bearer(devKey), 'content-type': 'text/csv' },
    });
    // The body itself is the string: its path is the root.
    expect(refusal(res)).toEqual({ status: 400, code: 'invalid_payload', problems: [' invalid_string'] });
    expect(res.body.error.details.problems[0].message).toContain(`at character ${csv.indexOf('\0')}`);
  });

  it('a form body is checked after decoding: POST /api/v1/oauth/token with code=a%00 answers in the OAuth shape', async () => {
    const res = await svc.call('POST', '/api/v1/oauth/token', {
      rawBody: 'grant_type=authorization_code&code=a%00&redirect_uri=x&client_id=x&code_verifier=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/U\+0000/) });
  });

  it('a body nested 20,000 deep with U+0000 at the bottom is refused (no stack overflow), with the path to it', async () => {
    const depth = 20_000;
    const rawBody = `{"login":"x","password":"x","n":${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}}`;
    // The rule runs before the schema, so the depth never reaches zod.
    const big = await svc.call('POST', `${O}/objects/sales.Customer/search`, {
      rawBody,
      headers: { ...bearer(devKey), 'content-type': 'application/json' },
    });
    expect(big.status).toBe(400);
    expect(big.body.error.code).toBe('invalid_payload');
    expect(big.body.error.details.problems).toEqual([
      { path: `n${'[0]'.repeat(depth)}`, code: 'invalid_string', message: expect.stringMatching(/U\+0000/) },
    ]);
  });

  it('a __proto__ key anywhere in a JSON body is refused (zod would drop it silently; assigned, it sets a prototype)', async () => {
    const res = await svc.call('POST', `${O}/objects/sales.Customer/import`, {
      rawBody: '[{"id":"c7","name":"x","__proto__":{"polluted":true}}]',
      headers: { ...bearer(devKey), 'content-type': 'application/json' },
    });
    expect(refusal(res)).toEqual({ status: 400, code: 'invalid_payload', problems: ['[0].__proto__ invalid_key'] });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect((await svc.call('GET', `${O}/objects/sales.Customer/c7`, { headers: bearer(devKey) })).status).toBe(404);
  });

  it('names the first 100 problems and counts the rest', async () => {
    const res = await svc.call('POST', `${O}/edits`, {
      body: { edits: Array.from({ length: 150 }, () => ({ type: 'delete', objectType: 'sales.Customer', primaryKey: '\u0000' })) },
      headers: bearer(devKey),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.problems).toHaveLength(100);
    expect(res.body.error.details.problems[99].path).toBe('edits[99].primaryKey');
    expect(res.body.error.details.omittedProblems).toBe(50);
  });
});

// Already a 404 before issue 28 (the page trees resolve names in memory first); kept as a guard.
describe('app pages with %00 in their path', () => {
  it('GET of a version file, a skill page and a public link with %00 or undecodable bytes answers 404, on both trees', async () => {
    for (const tree of [svc.addresses.productionBase, svc.addresses.developerBase]) {
      const app = `${tree}/cell-acme/apps/notes`;
      const page = await rawGet(app, bearer(devKey));
      expect(page.status).toBe(200);
      const { base } = injected(page.text);
      for (const url of [
        `${base}in%00dex.html`,
        `${base}%00`,
        `${app}/skills/%00/SKILL.md`,
        `${tree}/s/%00`,
        `${base}%ff`,
        `${tree}/cell-acme/apps/n%00`,
      ]) {
        const res = await rawGet(url, bearer(devKey));
        expect(res.status, url).toBe(404);
      }
    }
  });
});
