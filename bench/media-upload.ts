// Media upload sessions: a 256 MiB item in 16 MiB parts put through the API of a service with
// its worker (role all) on S3 (s3rver on loopback, on disk), completed, and polled until its
// assembly workflow has attached it: parts, completion, assembly (the item recorded as the
// composite of its parts; hashed as the parts arrived in order, so no part is read again) and
// attachment. Baseline in the same run: the same bytes written to the same
// store directly, as 16 PutObjects of 16 MiB through the SDK. The parts are sent through
// node:http, the transport the baseline's SDK uses; a second line sends them with fetch, which
// copies a Buffer body (context, no goal). Also the peak RSS of this process (service, worker and
// s3rver together) above its level before the uploads.
// Usage: npx node bench/media-upload.ts [rounds=3] [itemMiB=256]
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { s3BlobBackend } from '../infra/blobs/s3-blob-backend.ts';
import { MEDIA_LIMITS } from '../schemas/media.ts';
import { rawGet } from '../test/support/raw-http.ts';
import { report } from './support/report.ts';
import { startBenchService } from './support/service.ts';
import { median, time } from './support/timing.ts';

const rounds = Number(process.argv[2] ?? 3);
const itemBytes = Number(process.argv[3] ?? 256) * 1024 * 1024;
const PART = MEDIA_LIMITS.uploadPartBytes;
const BUCKET = 'bench-media';
const s3Dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-bench-media-'));
const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: BUCKET }] });
// s3rver's account, where the SDK's standard chain looks first.
Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' });
const { port } = await s3.run();
const endpoint = `http://127.0.0.1:${port}`;
const bench = await startBenchService({ role: 'all', env: { SVC_BLOB_STORE: `s3://${BUCKET}/svc`, SVC_BLOB_STORE_ENDPOINT: endpoint } });

const PARTS = Math.ceil(itemBytes / PART);
/** Part `i` of round `r`, made when sent (one part in memory): distinct per round and part, so no round finds its bytes already stored. */
const partOf = (r: number, i: number) => {
  const bytes = Buffer.alloc(Math.min(PART, itemBytes - i * PART), r * 251 + i);
  for (let at = 0; at + 4 <= bytes.length; at += 4096) bytes.writeUInt32BE(at ^ (r << 20) ^ i, at);
  return bytes;
};

try {
  const key = bench.developerKey;
  const media = {
    apiName: 'bench.Clip',
    primaryKey: 'id',
    properties: { id: { dataType: { type: 'string' } }, video: { dataType: { type: 'mediaReference' } } },
  };
  await bench.call('POST', '/api/v1/developer/semantic/cell-bench/types', { types: [media] }, key);
  await bench.call(
    'POST',
    '/api/v1/ontologies/cell-bench/edits',
    { edits: [{ type: 'create', objectType: 'bench.Clip', properties: { id: 'c1' } }] },
    key,
  );
  const uploads = '/api/v1/ontologies/cell-bench/objectTypes/bench.Clip/media/video/uploads';
  const direct = s3BlobBackend({ bucket: BUCKET, prefix: 'direct', endpoint });

  type Send = (url: string, body: Buffer) => Promise<{ status: number; text: string }>;
  const throughHttp: Send = (url, body) =>
    rawGet(url, { authorization: `Bearer ${key}`, 'content-length': String(body.length) }, 'PUT', body);
  const throughFetch: Send = async (url, body) => {
    const res = await fetch(url, { method: 'PUT', body, headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, text: await res.text() };
  };
  const upload = async (r: number, send: Send) => {
    const session = await bench.call('POST', uploads, { sizeBytes: itemBytes, mimeType: 'video/mp4', primaryKey: 'c1' }, key);
    const base = `${uploads}/${session.uploadId}`;
    for (let i = 0; i < PARTS; i++) {
      const res = await send(`${bench.svc.url}${base}/parts/${i + 1}`, partOf(r, i));
      if (res.status !== 200) throw new Error(`part ${i + 1}: ${res.status} ${res.text}`);
    }
    for (let state = ''; state !== 'COMPLETED'; ) {
      state = (await bench.call('POST', `${base}/complete`, undefined, key)).state;
      if (state === 'FAILED') throw new Error(`upload ${session.uploadId} failed`);
      if (state !== 'COMPLETED') await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  // One part after another, as the session's parts are sent.
  const putDirect = async (r: number) => {
    for (let i = 0; i < PARTS; i++) {
      const bytes = partOf(r, i);
      await direct.put([{ sha256: createHash('sha256').update(bytes).digest('hex'), bytes }]);
    }
  };

  const rssBefore = process.memoryUsage().rss;
  const sessions: number[] = [];
  const fetched: number[] = [];
  const baseline: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternating, each with bytes of its own, so none finds another's objects.
    baseline.push(await time(() => putDirect(3 * r)));
    sessions.push(await time(() => upload(3 * r + 1, throughHttp)));
    fetched.push(await time(() => upload(3 * r + 2, throughFetch)));
  }
  const mbPerSecond = (ms: number) => itemBytes / 2 ** 20 / (ms / 1000);
  const mib = itemBytes / 2 ** 20;
  report({
    name: `upload session of ${mib} MiB in 16 MiB parts, until COMPLETED (S3)`,
    value: mbPerSecond(median(sessions)),
    unit: 'MiB/s',
    baseline: mbPerSecond(median(baseline)),
    goal: '>= 0.7x direct PutObjects',
  });
  report({
    name: `the same, parts sent with fetch`,
    value: mbPerSecond(median(fetched)),
    unit: 'MiB/s',
    baseline: mbPerSecond(median(baseline)),
  });
  report({
    name: `peak RSS above start during ${rounds}x3 uploads of ${mib} MiB (service+worker+s3rver)`,
    value: (process.resourceUsage().maxRSS * 1024 - rssBefore) / 2 ** 20,
    unit: 'MiB',
  });
} finally {
  await bench.stop();
  await s3.close();
  await fs.rm(s3Dir, { recursive: true, force: true });
}
