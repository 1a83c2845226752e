import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordKey, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { until } from '../../support/workflow-env.ts';

// The process's body buffer (SVC_BODY_BUFFER_BYTES, api/http/body-buffer.ts): request bodies are
// read whole, so what they hold at once is bounded, and one company gets at most half of it.

const MiB = 1024 * 1024;
const BUFFER = 64 * MiB;
const BODY = 20 * MiB;
let svc: TestService;
let acme: string;
let globex: string;

beforeAll(async () => {
  svc = await startTestService({ env: { SVC_BODY_BUFFER_BYTES: String(BUFFER), SVC_MAX_BODY_BYTES: String(48 * MiB) } });
  await seedCompanies(svc);
  acme = await passwordKey(svc, 'dana');
  globex = await passwordKey(svc, 'gus');
}, 60_000);
afterAll(() => svc?.stop());

/** A version upload declaring `bytes`, of which only the first MiB is sent: the request stays open, its answer (if any) kept. */
function openUpload(key: string, cellId: string, bytes = BODY) {
  const url = new URL(`${svc.url}/api/v1/developer/apps/${cellId}/held/versions`);
  const answer: { status?: number; body: string } = { body: '' };
  const req = http.request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(bytes) },
  });
  req.on('response', (res) => {
    answer.status = res.statusCode;
    res.on('data', (c: Buffer) => (answer.body += c));
  });
  req.on('error', () => {}); // ended by the test or by the server's refusal
  req.write(Buffer.alloc(MiB, 0x20));
  return { answer, end: () => req.destroy() };
}

describe('body buffer', () => {
  it("a company's bodies take at most half the buffer (429 rate_limited past it, nothing read), another company's still fit, and all is given back when they end", async () => {
    const buffer = svc.deps.http.bodyBuffer;
    const first = openUpload(acme, 'cell-acme');
    await until(
      async () => buffer.held(),
      (held) => held >= BODY,
    );

    const second = openUpload(acme, 'cell-acme');
    const refused = await until(
      async () => second.answer,
      (a) => a.status !== undefined && a.body.endsWith('}'),
    );
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.code).toBe('rate_limited');
    expect(buffer.held()).toBe(BODY);

    const other = openUpload(globex, 'cell-globex');
    expect(
      await until(
        async () => buffer.held(),
        (held) => held >= 2 * BODY,
      ),
    ).toBe(2 * BODY);
    expect(other.answer.status).toBeUndefined();

    for (const upload of [first, second, other]) upload.end();
    expect(
      await until(
        async () => buffer.held(),
        (held) => held === 0,
      ),
    ).toBe(0);
  }, 60_000);

  it('a body larger than one company may ever hold is 413 payload_too_large, not a 429 to retry', async () => {
    const whole = openUpload(acme, 'cell-acme', 40 * MiB);
    const answer = await until(
      async () => whole.answer,
      (a) => a.status !== undefined && a.body.endsWith('}'),
    );
    whole.end();
    expect([answer.status, JSON.parse(answer.body).error.code]).toEqual([413, 'payload_too_large']);
    expect(svc.deps.http.bodyBuffer.held()).toBe(0);
  }, 60_000);
});
