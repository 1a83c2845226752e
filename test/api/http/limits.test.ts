import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMITS } from '../../../api/http/route.ts';
import { bearer, operatorKey } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Each route reads only the body it needs, and budgets are spent before any body is read.

let svc: TestService;
let op: string;

beforeAll(async () => {
  svc = await startTestService();
  op = await operatorKey(svc);
});
afterAll(() => svc.close());

const padded = (bytes: number) => ({ login: 'someone', password: 'x', pad: 'a'.repeat(bytes) });

describe('body limits per route', () => {
  it('a route that needs no credential reads at most 4 KiB', async () => {
    const res = await svc.call('POST', '/api/v1/developer/password-tokens', { body: padded(BODY_LIMITS.noCredential) });
    expect([res.status, res.body.error.code]).toEqual([413, 'payload_too_large']);
    expect(res.body.error.details).toEqual({ limitBytes: 4096 });
    // Just under the limit the body is read and validated (the unknown field is named).
    const fits = await svc.call('POST', '/api/v1/developer/password-tokens', { body: padded(3500) });
    expect([fits.status, fits.body.error.details.problems[0].path]).toEqual([400, 'pad']);
  });

  it('a keyed route reads at most 64 KiB; only the bundle upload reads the configured upload limit', async () => {
    const res = await svc.call('POST', '/api/v1/admin/organizations', {
      body: { cellId: 'cell-big', name: 'n'.repeat(BODY_LIMITS.default) },
      headers: bearer(op),
    });
    expect([res.status, res.body.error.details]).toEqual([413, { limitBytes: 65536 }]);
    const upload = await svc.call('POST', '/api/v1/developer/apps/public/big/versions', {
      body: { manifest: {}, files: [], notes: 'n'.repeat(BODY_LIMITS.default) },
      headers: bearer(op),
    });
    expect(upload.status).not.toBe(413);
  });

  it('spends the per-IP budget before reading the body: once spent, even an oversized body answers 429', async () => {
    const local = await startTestService();
    try {
      const oversized = { body: padded(BODY_LIMITS.noCredential) };
      for (let i = 0; i < 60; i++) {
        const res = await local.call('POST', '/api/v1/web/sessions', oversized);
        expect(res.status).toBe(413);
      }
      const refused = await local.call('POST', '/api/v1/web/sessions', oversized);
      expect([refused.status, refused.body.error.code]).toEqual([429, 'rate_limited']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await local.close();
    }
  });
});

describe('schema problems', () => {
  it('lists at most 100 and counts the rest, so a body full of unknown fields gets a small answer', async () => {
    const body = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, 1]));
    const res = await svc.call('POST', '/api/v1/admin/organizations', {
      body: { cellId: 'cell-many', name: 'M', ...body },
      headers: bearer(op),
    });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_payload']);
    expect(res.body.error.details.problems).toHaveLength(100);
    expect(res.body.error.details.omittedProblems).toBe(2900);
  });
});

describe('answer headers', () => {
  it('a key-issuing answer is never cached and every API answer says nosniff', async () => {
    const issued = await svc.call('POST', '/api/v1/developer/password-tokens', {
      body: { login: 'operator', password: 'operator-password-1' },
    });
    expect(issued.status).toBe(201);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    for (const res of [issued, await svc.call('GET', '/api/v1/health'), await svc.call('GET', '/api/v1/nowhere')]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('pages are not stored and assets are revalidated; both say nosniff', async () => {
    const page = await svc.call('GET', '/signin');
    expect([page.headers.get('cache-control'), page.headers.get('x-content-type-options')]).toEqual(['no-store', 'nosniff']);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const asset = await svc.call('GET', '/web/assets/common.js');
    expect([asset.status, asset.headers.get('cache-control'), asset.headers.get('x-content-type-options')]).toEqual([
      200,
      'no-cache',
      'nosniff',
    ]);
  });
});
