import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedBlobStore } from '../domain/apps/blob-store.ts';
import { bundle } from './support/bundles.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { type StartedProcess, startProcess } from './support/process.ts';
import { startS3Server, type TestS3, useS3Credentials } from './support/s3.ts';

// Two API processes over one PostgreSQL and one S3 bucket, as `npm run api` scales out: what
// one stores, the other serves. No HTTP route returns file bytes yet (hosting will add one),
// so the second process shows the version and this test reads its files the way any process's
// blob store does: from S3, verified against the hashes the database records.

const OPERATOR = { login: 'blob-ops', password: 'blob-operator-password' };
let database: TestDatabase;
let s3: TestS3;
const processes: StartedProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  useS3Credentials();
  s3 = await startS3Server();
  const env = {
    DATABASE_URL: database.url,
    SVC_OPERATOR_LOGIN: OPERATOR.login,
    SVC_OPERATOR_PASSWORD: OPERATOR.password,
    ...s3.env('shared'),
  };
  // One after the other: both would otherwise race to create the operator account.
  processes.push(await startProcess(['api'], env));
  processes.push(await startProcess(['api'], env));
});
afterAll(async () => {
  for (const p of processes) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
  await s3?.close();
  await database?.drop();
});

async function call(base: string, method: string, path: string, body?: unknown, key?: string) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('two API processes sharing an S3 blob store', () => {
  it('serve a version uploaded through the first from the second, its files in S3 under their hashes', async () => {
    const [first, second] = processes.map((p) => p.ready) as [string, string];
    const token = await call(first, 'POST', '/api/v1/developer/password-tokens', OPERATOR);
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    const key: string = token.body.data.key;

    const uploaded = bundle('shared', '1.0.0');
    const res = await call(first, 'POST', '/api/v1/developer/apps/public/shared/versions', uploaded, key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);

    const seen = await call(second, 'GET', '/api/v1/developer/apps/public/shared', undefined, key);
    expect(seen.status).toBe(200);
    expect(seen.body.data.versions).toMatchObject([{ version: '1.0.0', digest: res.body.data.digest, fileCount: 2 }]);

    const rows = await database.db.selectFrom('version_files').select(['path', 'blob_sha256']).orderBy('path').execute();
    const reader = cachedBlobStore(s3.backend('shared'), 0);
    for (const row of rows) {
      const sha = row.blob_sha256.toString('hex');
      const content = uploaded.files.find((f) => f.path === row.path)!.content;
      expect(sha).toBe(createHash('sha256').update(content).digest('hex'));
      expect((await reader.get(sha)).toString()).toBe(content);
    }
    expect(s3.puts.sort()).toEqual(rows.map((r) => `shared/sha256/${r.blob_sha256.toString('hex')}`).sort());
    expect(await database.db.selectFrom('blobs').select('sha256').execute()).toEqual([]);
  });
});
