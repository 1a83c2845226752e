import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorruptBlobError, cachedBlobStore, MissingBlobError } from '../../../domain/apps/blob-store.ts';
import { s3BlobBackend } from '../../../infra/blobs/s3-blob-backend.ts';
import { startS3Server, type TestS3, useS3Credentials } from '../../support/s3.ts';

let s3: TestS3;
beforeAll(async () => {
  useS3Credentials();
  s3 = await startS3Server();
});
afterAll(() => s3?.close());

const blob = (text: string) => {
  const bytes = Buffer.from(text);
  return { sha256: createHash('sha256').update(bytes).digest('hex'), bytes };
};
const backend = (prefix: string) => s3.backend(prefix);

describe('S3 blob backend (against a loopback S3 server)', () => {
  it('stores each content at <prefix>/sha256/<hex> and reads it back', async () => {
    const store = cachedBlobStore(backend('apps/v1'), 0);
    const a = blob('alpha');
    const b = blob('beta');
    await store.put([a, b, a]);
    expect(s3.puts.filter((k) => k.startsWith('apps/v1/')).sort()).toEqual(
      [`apps/v1/sha256/${a.sha256}`, `apps/v1/sha256/${b.sha256}`].sort(),
    );
    expect(await store.get(a.sha256)).toEqual(a.bytes);
    expect(await store.get(b.sha256)).toEqual(b.bytes);
  });

  it('writes content once: a second put of a stored hash sends no PUT', async () => {
    const store = cachedBlobStore(backend('dedupe'), 0);
    const c = blob('written once');
    await store.put([c]);
    await store.put([c]);
    await cachedBlobStore(backend('dedupe'), 0).put([c, blob('another')]);
    expect(s3.puts.filter((k) => k === `dedupe/sha256/${c.sha256}`)).toHaveLength(1);
    expect(s3.puts.filter((k) => k.startsWith('dedupe/'))).toHaveLength(2);
  });

  it('streams a content out in chunks, and answers MissingBlobError for a key that holds nothing', async () => {
    const store = cachedBlobStore(backend('streamed'), 0);
    const whole = Buffer.alloc(16 * 1024 * 1024 + 5, 9);
    whole.write('head', 0);
    const sha256 = createHash('sha256').update(whole).digest('hex');
    await store.put([{ sha256, bytes: whole }]);
    const read: Buffer[] = [];
    for await (const chunk of store.stream(sha256)) read.push(chunk);
    expect(read.length).toBeGreaterThan(1);
    expect(Buffer.concat(read).equals(whole)).toBe(true);
    await expect(async () => {
      for await (const _ of store.stream(blob('never stored').sha256)) break;
    }).rejects.toBeInstanceOf(MissingBlobError);
  });

  it('keeps objects under the bucket root when the prefix is empty', async () => {
    const d = blob('at the root');
    await backend('').put([d]);
    expect(s3.puts).toContain(`sha256/${d.sha256}`);
    expect(await backend('').fetch(d.sha256)).toEqual(d.bytes);
  });

  it('refuses a tampered object with CorruptBlobError, never its bytes', async () => {
    const store = cachedBlobStore(backend('tamper'), 1024);
    const e = blob('genuine');
    await store.put([e]);
    // Same length, other bytes: only the hash check can tell.
    await fs.writeFile(await s3.objectFile(`tamper/sha256/${e.sha256}`), 'GENUINE');
    await expect(store.get(e.sha256)).rejects.toBeInstanceOf(CorruptBlobError);
    await expect(store.get(e.sha256)).rejects.toThrow(`blob ${e.sha256} does not match its content`);
  });

  it('answers MissingBlobError for a hash nothing is stored under', async () => {
    await expect(cachedBlobStore(backend('missing'), 0).get(blob('never stored').sha256)).rejects.toBeInstanceOf(MissingBlobError);
  });
});

// s3rver ignores If-None-Match on PUT, so the lost race (another writer stored the object
// between our HEAD and PUT) is played by a minimal server answering as S3 does.
describe('S3 blob backend, conditional write lost to another writer', () => {
  async function serverAnsweringPut(status: number, code: string) {
    const seen: string[] = [];
    const headers: http.IncomingHttpHeaders[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.headers['if-none-match'] ?? ''}`);
      headers.push(req.headers);
      req.resume();
      if (req.method === 'HEAD') return void res.writeHead(404).end();
      res.writeHead(status, { 'content-type': 'application/xml' }).end(`<Error><Code>${code}</Code><Message>${code}</Message></Error>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { backend: s3BlobBackend({ bucket: 'svc-blobs', prefix: 'race', endpoint }), seen, headers, close: () => server.close() };
  }

  it('counts 412 PreconditionFailed as stored: the object exists with the same content', async () => {
    const s = await serverAnsweringPut(412, 'PreconditionFailed');
    try {
      await s.backend.put([blob('raced')]);
      expect(s.seen).toEqual(['HEAD ', 'PUT *']);
    } finally {
      s.close();
    }
  });

  it('signs the hash the blob is put under as its payload hash, without hashing the body again', async () => {
    const s = await serverAnsweringPut(412, 'PreconditionFailed');
    try {
      // A hash that is not the bytes': what the request carries is the one given, not one the SDK computed.
      const given = blob('the hash given');
      await s.backend.put([{ sha256: given.sha256, bytes: Buffer.from('other bytes') }]);
      const put = s.headers[s.seen.indexOf('PUT *')]!;
      expect([put['x-amz-content-sha256'], put['x-amz-checksum-sha256']]).toEqual([
        given.sha256,
        Buffer.from(given.sha256, 'hex').toString('base64'),
      ]);
    } finally {
      s.close();
    }
  });

  it('still fails on any other refusal', async () => {
    const s = await serverAnsweringPut(403, 'AccessDenied');
    try {
      await expect(s.backend.put([blob('denied')])).rejects.toThrow(/AccessDenied/);
    } finally {
      s.close();
    }
  });
});
