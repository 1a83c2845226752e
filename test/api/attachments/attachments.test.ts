import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHeaders } from '../../../api/media/content.ts';
import { removeUnusedAttachments } from '../../../domain/attachments/index.ts';
import { ATTACHMENT_LIMITS } from '../../../schemas/attachments.ts';
import { TestClock } from '../../support/clock.ts';
import { bearer, passwordKey, seedCompanies } from '../../support/identity.ts';
import { startS3Server, type TestS3, useS3Credentials } from '../../support/s3.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Attachments end to end on the real service with the S3 content store (s3rver on loopback):
// upload, metadata, content answered as media content is, the 200 MB limit at its boundary,
// hostile filenames, linking through an action parameter (10 objects, not 11), expiry after an
// hour unused, reads through the object, and another company's attachments never found.

let s3: TestS3;
let svc: TestService;
let dana: string;
let mo: string;
let gus: string;
const clock = new TestClock('2026-11-28T08:00:00Z');
const UPLOAD = '/api/v1/ontologies/attachments/upload';
const NOTES = '/api/v1/ontologies/cell-acme/objects/docs.Note';

const NOTE = {
  apiName: 'docs.Note',
  primaryKey: 'id',
  properties: { id: { dataType: { type: 'string' } }, file: { dataType: { type: 'attachment' } } },
};
const ATTACH = {
  apiName: 'docs.attachFile',
  parameters: {
    note: { dataType: { type: 'objectReference', objectType: 'docs.Note' } },
    file: { dataType: { type: 'attachment' } },
  },
  edits: [{ type: 'modifyObject', object: 'note', properties: { file: { parameter: 'file' } } }],
};

beforeAll(async () => {
  s3 = await startS3Server();
  useS3Credentials();
  svc = await startTestService({ env: s3.env('attachments'), clock });
  await seedCompanies(svc);
  [dana, mo, gus] = [await passwordKey(svc, 'dana'), await passwordKey(svc, 'mo'), await passwordKey(svc, 'gus')];
  const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: { types: [NOTE] }, headers: bearer(dana) });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  const actions = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', {
    body: { actionTypes: [ATTACH] },
    headers: bearer(dana),
  });
  expect(actions.status, JSON.stringify(actions.body)).toBe(200);
  const notes = Array.from({ length: 12 }, (_, i) => ({ type: 'create', objectType: 'docs.Note', properties: { id: `n${i + 1}` } }));
  const created = await svc.call('POST', '/api/v1/ontologies/cell-acme/edits', { body: { edits: notes }, headers: bearer(dana) });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
});
afterAll(async () => {
  await svc?.close();
  await s3?.close();
});

const upload = (key: string, filename: string, bytes: Buffer | string, type = 'text/plain', extra: Record<string, string> = {}) =>
  svc.call('POST', `${UPLOAD}?filename=${encodeURIComponent(filename)}`, {
    rawBody: bytes,
    headers: { ...bearer(key), 'content-type': type, ...extra },
  });
const uploaded = async (key: string, filename: string, bytes: Buffer | string, type?: string) => {
  const res = await upload(key, filename, bytes, type);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.rid as string;
};
const attach = (key: string, note: string, file: string) =>
  svc.call('POST', '/api/v1/ontologies/cell-acme/actions/docs.attachFile/apply', {
    body: { parameters: { note, file } },
    headers: bearer(key),
  });

/** A request that declares a body of `length` bytes and sends none: the answer to the declaration alone. */
function declaredOnly(length: number): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${svc.url}${UPLOAD}?filename=big.bin`, {
      method: 'POST',
      headers: { ...bearer(dana), 'content-type': 'application/octet-stream', 'content-length': String(length) },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

describe('attachments', () => {
  it('uploads a file and answers its metadata and content as media content is (ranges, strong ETag, sandbox headers)', async () => {
    const text = 'hello attachments, 0123456789';
    const res = await upload(dana, 'notes ä.txt', text, 'text/plain; charset=utf-8');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rid = res.body.data.rid as string;
    expect(res.body.data).toEqual({ rid, filename: 'notes ä.txt', sizeBytes: text.length, mediaType: 'text/plain' });
    expect(rid).toMatch(/^ri\.attachments\.main\.attachment\.[0-9a-f-]{36}$/);

    const meta = await svc.call('GET', `/api/v1/ontologies/attachments/${rid}`, { headers: bearer(dana) });
    expect(meta.body.data).toEqual(res.body.data);
    const url = `${svc.url}/api/v1/ontologies/attachments/${rid}/content`;
    const whole = await fetch(url, { headers: bearer(dana) });
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe(text);
    const sha256 = createHash('sha256').update(text).digest('hex');
    // The very headers media content carries, from the same code.
    for (const [name, value] of Object.entries(contentHeaders({ path: 'notes ä.txt', mimeType: 'text/plain', sha256 }))) {
      expect(whole.headers.get(name), name).toBe(value);
    }
    expect(whole.headers.get('content-disposition')).toBe("inline; filename*=UTF-8''notes%20%C3%A4.txt");
    const part = await fetch(url, { headers: { ...bearer(dana), range: 'bytes=6-16' } });
    expect([part.status, await part.text(), part.headers.get('content-range')]).toEqual([206, 'attachments', `bytes 6-16/${text.length}`]);
    expect((await fetch(url, { headers: { ...bearer(dana), range: `bytes=${text.length}-` } })).status).toBe(416);
    expect((await fetch(url, { headers: { ...bearer(dana), 'if-none-match': `"${sha256}"` } })).status).toBe(304);

    // An uploaded HTML page is sent as a download in a sandbox, never run.
    const html = await uploaded(dana, 'page.html', '<script>alert(1)</script>', 'text/html');
    const page = await fetch(`${svc.url}/api/v1/ontologies/attachments/${html}/content`, { headers: bearer(dana) });
    expect(page.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''page.html");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('content-security-policy')).toMatch(/^sandbox;/);
  });

  it('refuses hostile filenames and input with 400, never a 5xx', async () => {
    for (const name of ['a\u0000b.txt', '../etc/passwd', 'dir/file.txt', 'c:\\x.txt', 'x'.repeat(10_240), '..', '']) {
      const res = await upload(dana, name, 'x');
      expect([res.status, res.body.error.code], JSON.stringify(name.slice(0, 20))).toEqual([400, 'invalid_payload']);
    }
    const proto = await svc.call('POST', `${UPLOAD}?filename=a.txt&__proto__=x&constructor=y`, { rawBody: 'x', headers: bearer(dana) });
    expect([proto.status, proto.body.error.code]).toEqual([400, 'invalid_payload']);
    // A key acts for its own company only.
    const elsewhere = await svc.call('POST', `${UPLOAD}?filename=a.txt&ontology=cell-globex`, { rawBody: 'x', headers: bearer(dana) });
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([403, 'forbidden']);
    const badType = await upload(dana, 'a.txt', 'x', 'not a type');
    expect([badType.status, badType.body.error.code]).toEqual([400, 'invalid_payload']);
    // A name made of `__proto__` is just a name.
    expect((await upload(dana, '__proto__', '{}', 'application/json')).body.data.filename).toBe('__proto__');
    const badRid = await svc.call('GET', '/api/v1/ontologies/attachments/ri.attachments.main.attachment.%00', { headers: bearer(dana) });
    expect(badRid.status).toBe(400);
  });

  it('takes 200 MB exactly and refuses one byte more with attachment_size_exceeded_limit', async () => {
    const exact = Buffer.alloc(ATTACHMENT_LIMITS.bytes, 7);
    // A dry run reads and hashes the whole body: the limit is the read's, not only the declared length's.
    const dry = await upload(dana, 'big.bin', exact, 'application/octet-stream', { 'x-svc-dry-run': 'true' });
    expect(dry.status, JSON.stringify(dry.body)).toBe(202);
    expect(dry.body.data.plan).toMatchObject({ sizeBytes: ATTACHMENT_LIMITS.bytes, filename: 'big.bin' });
    // One byte more is refused on its declared length, before a byte of it is sent.
    const over = await declaredOnly(ATTACHMENT_LIMITS.bytes + 1);
    expect([over.status, over.body.error.code]).toEqual([413, 'attachment_size_exceeded_limit']);
    expect(over.body.error.details).toEqual({ limitBytes: ATTACHMENT_LIMITS.bytes });
  });

  it('links an attachment to at most 10 objects through the action parameter, and serves it through each object', async () => {
    const rid = await uploaded(dana, 'shared.txt', 'shared bytes');
    for (let i = 1; i <= 10; i++) {
      const res = await attach(dana, `n${i}`, rid);
      expect([res.status, res.body.data?.validation?.result], JSON.stringify(res.body)).toEqual([200, 'VALID']);
    }
    const eleventh = await attach(dana, 'n11', rid);
    expect(eleventh.status).toBe(200);
    expect(eleventh.body.data.validation.result).toBe('INVALID');
    expect(eleventh.body.data.validation.parameters.file.reason).toMatch(/linked to 10 objects already/);
    expect(await svc.database.db.selectFrom('attachment_links').select('primary_key').execute()).toHaveLength(10);

    const meta = await svc.call('GET', `${NOTES}/n3/attachments/file`, { headers: bearer(dana) });
    expect(meta.body.data).toEqual({ type: 'single', rid, filename: 'shared.txt', sizeBytes: 12, mediaType: 'text/plain' });
    const content = await fetch(`${svc.url}${NOTES}/n3/attachments/file/content`, { headers: { ...bearer(dana), range: 'bytes=-5' } });
    expect([content.status, await content.text(), content.headers.get('x-content-type-options')]).toEqual([206, 'bytes', 'nosniff']);
    expect((await svc.call('GET', `${NOTES}/n3`, { headers: bearer(dana) })).body.data.file).toEqual({ rid });

    // An object holding none, a property of another kind, an object that does not exist.
    expect((await svc.call('GET', `${NOTES}/n12/attachments/file`, { headers: bearer(dana) })).body.error.code).toBe(
      'attachment_not_found',
    );
    expect((await svc.call('GET', `${NOTES}/n3/attachments/id`, { headers: bearer(dana) })).body.error.code).toBe('property_not_found');
    expect((await svc.call('GET', `${NOTES}/nope/attachments/file`, { headers: bearer(dana) })).body.error.code).toBe('object_not_found');
    // A member whose apps list no such type does not see the object, so not its attachment either.
    const member = await svc.call('GET', `${NOTES}/n3/attachments/file/content`, { headers: bearer(mo) });
    expect(member.status).toBe(404);
    // By rid: the uploader and the company's developers only.
    expect((await svc.call('GET', `/api/v1/ontologies/attachments/${rid}`, { headers: bearer(mo) })).body.error.code).toBe(
      'attachment_not_found',
    );

    // Eleven objects in one write (the action's check sees each run alone; the writer counts them all): refused, nothing kept.
    const fresh = await uploaded(dana, 'fresh.txt', 'fresh');
    const eleven = Array.from({ length: 11 }, (_, i) => ({
      type: 'modify',
      objectType: 'docs.Note',
      primaryKey: `n${i + 1}`,
      properties: { file: { rid: fresh } },
    }));
    const batch = await svc.call('POST', '/api/v1/ontologies/cell-acme/edits', { body: { edits: eleven }, headers: bearer(dana) });
    expect([batch.status, batch.body.error.code, batch.body.error.details]).toEqual([
      409,
      'conflict',
      { attachmentRid: fresh, limit: 10, links: 11 },
    ]);
    expect((await svc.call('GET', `${NOTES}/n1`, { headers: bearer(dana) })).body.data.file).toEqual({ rid });

    // Replacing a note's attachment frees a link: the eleventh note may have it now.
    const other = await uploaded(dana, 'other.txt', 'other');
    expect((await attach(dana, 'n1', other)).body.data.validation.result).toBe('VALID');
    expect((await attach(dana, 'n11', rid)).body.data.validation.result).toBe('VALID');
  });

  it('never finds another company’s attachment, by rid or as an action parameter', async () => {
    const theirs = await uploaded(gus, 'globex.txt', 'secret of globex');
    const byRid = await svc.call('GET', `/api/v1/ontologies/attachments/${theirs}`, { headers: bearer(dana) });
    expect([byRid.status, byRid.body.error.code]).toEqual([404, 'attachment_not_found']);
    const content = await svc.call('GET', `/api/v1/ontologies/attachments/${theirs}/content`, { headers: bearer(dana) });
    expect([content.status, content.body.error.code]).toEqual([404, 'attachment_not_found']);
    const linked = await attach(dana, 'n12', theirs);
    expect([linked.status, linked.body.error.code]).toEqual([404, 'attachment_not_found']);
    // Nor does a direct edit set it.
    const edited = await svc.call('POST', '/api/v1/ontologies/cell-acme/edits', {
      body: { edits: [{ type: 'modify', objectType: 'docs.Note', primaryKey: 'n12', properties: { file: { rid: theirs } } }] },
      headers: bearer(dana),
    });
    expect([edited.status, edited.body.error.code]).toEqual([404, 'attachment_not_found']);
  });

  it('expires an attachment unused for an hour: no longer linkable, then removed; used ones stay', async () => {
    const unused = await uploaded(dana, 'late.txt', 'too late');
    const used = await uploaded(dana, 'kept.txt', 'kept');
    expect((await attach(dana, 'n12', used)).body.data.validation.result).toBe('VALID');
    clock.advance({ minutes: 60 });
    const late = await attach(dana, 'n12', unused);
    expect([late.status, late.body.error.code]).toEqual([404, 'attachment_not_found']);
    // The removal (the scheduled workflow's use case) drops the unused one and every other unused upload of this file, not the used.
    const { removed } = await removeUnusedAttachments(svc.database.db, { now: clock.now(), batchSize: 100 });
    expect(removed).toBeGreaterThanOrEqual(1);
    const left = (await svc.database.db.selectFrom('attachments').select('filename').execute()).map((r) => r.filename);
    expect(left).not.toContain('late.txt');
    expect(left).toEqual(expect.arrayContaining(['kept.txt', 'shared.txt']));
    expect((await svc.call('GET', `${NOTES}/n12/attachments/file`, { headers: bearer(dana) })).body.data.rid).toBe(used);
  });

  // Last: the policy hides objects from everyone after it.
  it('reads through the object with the object’s security: a hidden object’s attachment is object_not_found', async () => {
    const own = await uploaded(dana, 'own.txt', 'mine');
    const created = await svc.call('POST', '/api/v1/ontologies/cell-acme/edits', {
      body: { edits: [{ type: 'create', objectType: 'docs.Note', properties: { id: 'dana', file: { rid: own } } }] },
      headers: bearer(dana),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const policy = await svc.call('PUT', '/api/v1/ontologies/cell-acme/objectTypes/docs.Note/security', {
      body: { objectPolicy: { conditions: [{ type: 'userAttribute', property: 'id', attribute: 'svc:username' }] } },
      headers: bearer(dana),
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    const mine = await fetch(`${svc.url}${NOTES}/dana/attachments/file/content`, { headers: bearer(dana) });
    expect([mine.status, await mine.text()]).toEqual([200, 'mine']);
    for (const path of [`${NOTES}/n3/attachments/file`, `${NOTES}/n3/attachments/file/content`]) {
      const hidden = await svc.call('GET', path, { headers: bearer(dana) });
      expect([hidden.status, hidden.body.error.code]).toEqual([404, 'object_not_found']);
    }
  });
});
