import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { vi } from 'vitest';
import type { BlobBackend } from '../../domain/apps/blob-store.ts';
import { s3BlobBackend } from '../../infra/blobs/s3-blob-backend.ts';

// A real S3-protocol server (s3rver) on a loopback port, its objects in a temporary folder.

export const S3_BUCKET = 'svc-blobs';
/**
 * s3rver's only account, for the standard AWS chain: child processes get it in their
 * environment, a test file sets it in its own (`useS3Credentials`).
 */
export const S3_ENV = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };

export interface TestS3 {
  endpoint: string;
  /** Keys of every object written (PUT) so far, in order, repeats included. */
  puts: string[];
  /** The file that holds an object's bytes, to tamper with it. */
  objectFile(key: string): Promise<string>;
  /** A backend on this server, as the service builds it (call `useS3Credentials` first). */
  backend(prefix: string): BlobBackend;
  /** The environment that points the service at this server. */
  env(prefix: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startS3Server(): Promise<TestS3> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: S3_BUCKET }] });
  const puts: string[] = [];
  server.on('event', (e) => {
    for (const r of e.Records) if (r.eventName.startsWith('ObjectCreated')) puts.push(decodeURIComponent(r.s3.object.key));
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    puts,
    async objectFile(key) {
      const file = path.join(directory, S3_BUCKET, `${key}._S3rver_object`);
      await fs.access(file);
      return file;
    },
    backend: (prefix) => s3BlobBackend({ bucket: S3_BUCKET, prefix, endpoint }),
    env: (prefix) => ({ ...S3_ENV, SVC_BLOB_STORE: `s3://${S3_BUCKET}/${prefix}`, SVC_BLOB_STORE_ENDPOINT: endpoint }),
    async close() {
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}

/** Puts s3rver's account where the SDK's chain finds it, for this test file (forks: one process each). */
export function useS3Credentials(): void {
  for (const [name, value] of Object.entries(S3_ENV)) vi.stubEnv(name, value);
}

/** For a test file run once per blob store: a loopback S3 server (credentials set) for `s3`, none for `postgres`. */
export async function startBlobBackend(backend: 'postgres' | 's3'): Promise<TestS3 | undefined> {
  if (backend === 'postgres') return undefined;
  const s3 = await startS3Server();
  useS3Credentials();
  return s3;
}
