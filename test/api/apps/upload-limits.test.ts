// Uploads built to cost the service: slow analysis, oversized content, huge file lists and
// paths that only look harmless. Each is answered quickly, with a small answer and the right code.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BundleFileInput, MAX_BUNDLE_FILES } from '../../../schemas/bundle/request.ts';
import { MAX_BUNDLE_BYTES } from '../../../schemas/bundle/validate-bundle.ts';
import { MAX_REPORTED_PROBLEMS } from '../../../schemas/problems.ts';
import { bundle } from '../../support/bundles.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
let dev: string;

const DRY_RUN = { 'x-svc-dry-run': 'true' };
const INDEX: BundleFileInput = { path: 'index.html', encoding: 'utf8', content: '<!doctype html><title>t</title>' };
const utf8File = (path: string, content = ''): BundleFileInput => ({ path, encoding: 'utf8', content });

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  // The first upload starts the validation thread; the timings below are about analysis.
  await upload('warm', bundle('warm', '1.0.0'), DRY_RUN);
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

function upload(slug: string, body: unknown, headers: Record<string, string> = {}) {
  return svc.call('POST', `/api/v1/developer/apps/cell-acme/${slug}/versions`, { body, headers: { ...bearer(dev), ...headers } });
}

async function timed<T>(run: Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await run;
  return { result, ms: performance.now() - started };
}

const answerBytes = (body: unknown) => Buffer.byteLength(JSON.stringify(body));
const codes = (body: { error: { details: { problems: { code: string }[] } } }) => body.error.details.problems.map((p) => p.code);

describe('analysis of uploaded code', () => {
  // js-lexer blanks the comment; the old polling patterns then backtracked over `function` + spaces.
  const script = (commentLength: number) => `fetch("/x");\nconst a = function/*${'x'.repeat(commentLength)}*/`;

  it.each([
    ['the reported 2,000-character comment', 2000],
    ['a 32 KB comment', 32 * 1024],
  ])('%s: the upload answers in well under a second, and so does /api/v1/health meanwhile', async (_label, commentLength) => {
    const body = bundle('slow', '1.0.0', { files: [INDEX, utf8File('app.js', script(commentLength))] });
    const uploading = timed(upload('slow', body, DRY_RUN));
    // Let the upload reach its analysis, then ask the service something else.
    await sleep(100);
    const health = await timed(svc.call('GET', '/api/v1/health'));
    const uploaded = await uploading;
    expect(health.result.status).toBe(200);
    expect(health.ms).toBeLessThan(1000);
    expect(uploaded.result.status).toBe(202);
    expect(uploaded.ms).toBeLessThan(1000);
  });
});

describe('bundle size', () => {
  it('answers a 3.5 MB base64 file with 422 bundle_too_large, not 500', async () => {
    const content = Buffer.alloc(3.5 * 1024 * 1024).toString('base64');
    const res = await upload('big', bundle('big', '1.0.0', { files: [INDEX, { path: 'big.png', encoding: 'base64', content }] }));
    expect([res.status, res.body.error.code]).toEqual([422, 'bundle_invalid']);
    expect(codes(res.body)).toEqual(['bundle_too_large']);
    expect(res.body.error.details.problems[0].message).toContain(String(MAX_BUNDLE_BYTES));
  });
});

describe('file list', () => {
  it(`refuses 120,000 files at once with a small 400 naming too_many_files (at most ${MAX_BUNDLE_FILES})`, async () => {
    const files = Array.from({ length: 120_000 }, () => utf8File('../a'));
    const res = await upload('many', bundle('many', '1.0.0', { files }));
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_payload']);
    expect(res.body.error.details.problems).toEqual([
      { path: 'files', code: 'too_many_files', message: expect.stringContaining('120000') },
    ]);
    expect(answerBytes(res.body)).toBeLessThan(2048);
  });

  it(`lists the first ${MAX_REPORTED_PROBLEMS} problems of a bundle with thousands, counts the rest, and stays small`, async () => {
    // Each file: a path too long, of a refused type, with invalid base64: three problems quoting the path.
    const files = Array.from(
      { length: MAX_BUNDLE_FILES },
      (_, i): BundleFileInput => ({
        path: `../${i}/${'x'.repeat(20_000)}.exe`,
        encoding: 'base64',
        content: '@',
      }),
    );
    const res = await upload('noisy', bundle('noisy', '1.0.0', { files }));
    expect([res.status, res.body.error.code]).toEqual([422, 'bundle_invalid']);
    const { problems, omittedProblems } = res.body.error.details;
    expect(problems).toHaveLength(MAX_REPORTED_PROBLEMS);
    expect(omittedProblems).toBeGreaterThan(0);
    expect(res.body.error.message).toContain(String(problems.length + omittedProblems));
    expect(answerBytes(res.body)).toBeLessThan(64 * 1024);
  });
});

describe('paths that normalize into something else', () => {
  it('refuses fullwidth and one-dot-leader parent segments and Windows device names', async () => {
    const files = [
      INDEX,
      utf8File('\uff0e\uff0e/evil.js'),
      utf8File('\u2024\u2024/evil.js'),
      utf8File('con.js'),
      utf8File('assets/LPT1.txt'),
    ];
    const res = await upload('paths', bundle('paths', '1.0.0', { files }));
    expect([res.status, res.body.error.code]).toEqual([422, 'bundle_invalid']);
    expect(res.body.error.details.problems.map((p: { path: string; code: string }) => [p.path, p.code])).toEqual([
      ['files[1].path', 'path_compatibility_character'],
      ['files[2].path', 'path_compatibility_character'],
      ['files[3].path', 'path_windows_reserved'],
      ['files[4].path', 'path_windows_reserved'],
    ]);
  });
});
