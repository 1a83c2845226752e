import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiFailure } from '../../../api/http/envelope.ts';
import { createNotesTable, fixtureRoutes } from '../../support/fixture-routes.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
const LIMIT = 64 * 1024;

beforeAll(async () => {
  svc = await startTestService({ extraRoutes: fixtureRoutes([]), env: { SVC_MAX_BODY_BYTES: String(LIMIT) } });
  await createNotesTable(svc.database.db);
});
afterAll(() => svc.close());

function expectFailure(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(ApiFailure.parse(res.body).error.code).toBe(code);
  expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
}

describe('success envelope', () => {
  it('wraps data with ok and the request id that the header carries', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/first', { body: { title: 'hello' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ ok: true, data: { id: 'first', title: 'hello' }, requestId: res.headers.get('x-request-id') });
  });

  it('keeps a plain caller-supplied request id and replaces an unsafe one', async () => {
    const kept = await svc.call('GET', '/api/v1/health', { headers: { 'x-request-id': 'trace-1234-abcd' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-1234-abcd');
    const replaced = await svc.call('GET', '/api/v1/health', { headers: { 'x-request-id': 'x<script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('failure envelope', () => {
  it('answers an unknown route with 404 not_found', async () => {
    expectFailure(await svc.call('GET', '/api/v1/nothing/here'), 404, 'not_found');
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await svc.call('DELETE', '/api/v1/health');
    expectFailure(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toContain('GET');
  });

  it('answers a method no route knows with 405 in the envelope too', async () => {
    expectFailure(await svc.call('PATCH', '/api/v1/test/notes/abc'), 405, 'method_not_allowed');
  });

  it('rejects a body that is not JSON with malformed_json', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/abc', {
      rawBody: '{"title": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expectFailure(res, 400, 'malformed_json');
  });

  it('rejects a non-JSON content type with malformed_json', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/abc', {
      rawBody: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectFailure(res, 400, 'malformed_json');
  });

  it('rejects a body without a content type (a cross-site form could send one) with malformed_json', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/abc', { rawBody: '{"title":"x"}', headers: { 'content-type': '' } });
    expectFailure(res, 400, 'malformed_json');
    expect(res.body.error.details).toEqual({ contentType: null });
    expect((await svc.call('GET', '/api/v1/health')).status).toBe(200);
  });

  it('rejects invalid UTF-8 with malformed_json', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/abc', {
      rawBody: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
      headers: { 'content-type': 'application/json' },
    });
    expectFailure(res, 400, 'malformed_json');
  });

  it('rejects a body over the limit with payload_too_large, declared or streamed', async () => {
    const big = JSON.stringify({ title: 'x', pad: 'a'.repeat(LIMIT) });
    const declared = await svc.call('POST', '/api/v1/test/notes/abc', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expectFailure(declared, 413, 'payload_too_large');
    expect(declared.body.error.details).toEqual({ limitBytes: LIMIT });

    // Chunked: no Content-Length, so the limit is enforced while reading.
    const chunked = await fetch(`${svc.url}/api/v1/test/notes/abc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(((await chunked.json()) as any).error.code).toBe('payload_too_large');
  });

  it('lists every schema problem with its path, unknown fields included', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/abc', {
      body: { title: '', tags: ['ok', 'much-too-long-tag', 3], meta: { color: 'red', shade: 2 }, titel: 'typo' },
    });
    expectFailure(res, 400, 'invalid_payload');
    const paths = res.body.error.details.problems.map((p: { path: string }) => p.path).sort();
    expect(paths).toEqual(['meta.shade', 'tags[1]', 'tags[2]', 'title', 'titel'].sort());
    const unknown = res.body.error.details.problems.find((p: { path: string }) => p.path === 'titel');
    expect(unknown).toEqual({ path: 'titel', code: 'unrecognized_keys', message: 'Unknown key "titel"' });
  });

  it('requires a body where the schema does', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/abc');
    expectFailure(res, 400, 'invalid_payload');
  });

  it('rejects a bad path value with invalid_path', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/NO_WAY', { body: { title: 'x' } });
    expectFailure(res, 400, 'invalid_path');
    expect(res.body.error.details.problems[0].path).toBe('noteId');
  });

  it('rejects bad and unknown query parameters with their path', async () => {
    const res = await svc.call('GET', '/api/v1/test/slow?ms=-1&extra=1');
    expectFailure(res, 400, 'invalid_payload');
    expect(res.body.error.details.problems.map((p: { path: string }) => p.path).sort()).toEqual(['query.extra', 'query.ms']);
  });

  it('hides unexpected errors behind internal_error without a stack or detail', async () => {
    const res = await svc.call('GET', '/api/v1/test/boom');
    expectFailure(res, 500, 'internal_error');
    expect(JSON.stringify(res.body)).not.toMatch(/secret internal detail|app\.ts|at /);
  });

  it('passes a typed ApiError through with its status, details and headers', async () => {
    const res = await svc.call('GET', '/api/v1/test/typed');
    expectFailure(res, 429, 'rate_limited');
    expect(res.body.error).toEqual({ code: 'rate_limited', message: 'slow down', details: { retryAfterSeconds: 7 } });
    expect(res.headers.get('retry-after')).toBe('7');
  });

  it('maps a unique violation to 409 conflict without naming the constraint (no schema leaks)', async () => {
    await svc.call('POST', '/api/v1/test/notes/dup', { body: { title: 'one' } });
    const res = await svc.call('POST', '/api/v1/test/notes/dup', { body: { title: 'two' } });
    expectFailure(res, 409, 'conflict');
    expect(res.body.error.details).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain('test_notes_pkey');
  });

  it('maps a statement timeout to 503 timeout with Retry-After', async () => {
    const res = await svc.call('POST', '/api/v1/test/stuck');
    expectFailure(res, 503, 'timeout');
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('refuses an ambiguous dry-run header instead of writing', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/maybe', { body: { title: 'x' }, headers: { 'x-svc-dry-run': 'yes' } });
    expectFailure(res, 400, 'invalid_payload');
    const after = await svc.call('POST', '/api/v1/test/notes/maybe', { body: { title: 'x' } });
    expect(after.status).toBe(201);
  });
});
