import { expect } from 'vitest';
import type { Role } from '../../service.ts';
import { bearer, passwordKey, seedCompanies } from './identity.ts';
import { startS3Server, type TestS3, useS3Credentials } from './s3.ts';
import { startTestService, type TestService } from './service.ts';

export interface MediaObjectService {
  s3: TestS3;
  svc: TestService;
  /** Acme's developer's key. */
  dana: string;
  /** The uploads path of the type's media property. */
  uploads: string;
  close(): Promise<void>;
}

/**
 * A service on s3rver (objects under `prefix`) with Acme's type `type`, whose property `media` is
 * a mediaReference (plus `extra` properties), and one object of it, `id`: what upload-session tests start from.
 */
export async function startMediaObjectService(opts: {
  prefix: string;
  type: string;
  media: string;
  id: string;
  role?: Role;
  extra?: Record<string, { dataType: { type: string } }>;
}): Promise<MediaObjectService> {
  const s3 = await startS3Server();
  useS3Credentials();
  const svc = await startTestService({ ...(opts.role ? { role: opts.role } : {}), env: s3.env(opts.prefix) });
  await seedCompanies(svc);
  const dana = await passwordKey(svc, 'dana');
  const type = {
    apiName: opts.type,
    primaryKey: 'id',
    properties: { id: { dataType: { type: 'string' } }, ...opts.extra, [opts.media]: { dataType: { type: 'mediaReference' } } },
  };
  const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: { types: [type] }, headers: bearer(dana) });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  const created = await svc.call('POST', '/api/v1/ontologies/cell-acme/edits', {
    body: { edits: [{ type: 'create', objectType: opts.type, properties: { id: opts.id } }] },
    headers: bearer(dana),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return {
    s3,
    svc,
    dana,
    uploads: `/api/v1/ontologies/cell-acme/objectTypes/${opts.type}/media/${opts.media}/uploads`,
    async close() {
      await svc.close();
      await s3.close();
    },
  };
}

/** A part's `read` for the upload use cases, as the route's is: each chunk given to `each` as it arrives, then the whole body. */
export const bodyOf =
  (...chunks: Buffer[]) =>
  async (_limit: number, each: (chunk: Buffer) => void): Promise<Buffer> => {
    for (const chunk of chunks) each(chunk);
    return Buffer.concat(chunks);
  };
