import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MEDIA_LIMITS } from '../../../schemas/media.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Media sets over HTTP (issue 30, part 1) with the database content store: sets, branches,
// transactions, items by path, content with ranges and ETags, who may do what, hostile paths.

let svc: TestService;
let dana: string;
let mo: string;
let gus: string;

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  [dana, mo, gus] = await Promise.all([passwordKey(svc, 'dana'), passwordKey(svc, 'mo'), passwordKey(svc, 'gus')]);
});
afterAll(() => svc?.close());
beforeEach(() => resetRateLimits(svc));

const json = (method: string, path: string, key: string, body?: unknown) =>
  svc.call(method, path, { ...(body === undefined ? {} : { body }), headers: bearer(key) });

async function newSet(body: object = {}, key = dana): Promise<string> {
  const res = await json('POST', '/api/v1/mediasets', key, { name: 'Photos', schema: 'image', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.rid;
}

const put = (rid: string, path: string, bytes: Buffer | string, opts: { type?: string; query?: string; key?: string } = {}) =>
  svc.call('POST', `/api/v1/mediasets/${rid}/items?mediaItemPath=${encodeURIComponent(path)}${opts.query ?? ''}`, {
    rawBody: typeof bytes === 'string' ? Buffer.from(bytes) : bytes,
    headers: { ...bearer(opts.key ?? dana), 'content-type': opts.type ?? 'image/png' },
  });

async function putOk(rid: string, path: string, bytes: Buffer | string, opts: Parameters<typeof put>[3] = {}): Promise<string> {
  const res = await put(rid, path, bytes, opts);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.mediaItemRid;
}

const content = (rid: string, item: string, headers: Record<string, string> = {}, key = dana) =>
  fetch(`${svc.url}/api/v1/mediasets/${rid}/items/${item}/content`, { headers: { ...bearer(key), ...headers } });

const paths = async (rid: string, query = '') =>
  (await json('GET', `/api/v1/mediasets/${rid}/items${query}`, dana)).body.data.data.map((i: { path: string }) => i.path);

describe('media sets', () => {
  it('creates a set with its main branch, gets it and lists it; members cannot create; other companies do not see it', async () => {
    const created = await json('POST', '/api/v1/mediasets', dana, {
      name: 'Shop photos',
      schema: 'image',
      allowedMimeTypes: ['image/png', 'image/jpeg'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const set = created.body.data;
    expect(set).toMatchObject({
      name: 'Shop photos',
      organization: 'cell-acme',
      schema: 'image',
      allowedMimeTypes: ['image/png', 'image/jpeg'],
    });
    expect(set.rid).toMatch(/^ri\.mio\.svc\.media-set\.[0-9a-f-]{36}$/);
    expect(set.branches).toEqual([
      {
        name: 'main',
        rid: expect.stringMatching(/^ri\.mio\.svc\.media-set-branch\./),
        viewRid: expect.stringMatching(/^ri\.mio\.svc\.media-set-view\./),
      },
    ]);
    expect((await json('GET', `/api/v1/mediasets/${set.rid}`, dana)).body.data).toEqual(set);
    const listed = await json('GET', '/api/v1/mediasets?pageSize=1000', dana);
    expect(listed.body.data.data.map((s: { rid: string }) => s.rid)).toContain(set.rid);
    // Pages follow one another by rid.
    await newSet();
    const all = listed.body.data.data.length + 1;
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const page: { body: { data: { data: { rid: string }[]; nextPageToken: string | null } } } = await json(
        'GET',
        `/api/v1/mediasets?pageSize=1${token ? `&pageToken=${token}` : ''}`,
        dana,
      );
      seen.push(...page.body.data.data.map((s) => s.rid));
      token = page.body.data.nextPageToken;
    } while (token);
    expect(seen).toHaveLength(all);
    expect([...seen].sort()).toEqual(seen);

    // A type the schema does not admit in the allowed list.
    const mixed = await json('POST', '/api/v1/mediasets', dana, { name: 'x', schema: 'image', allowedMimeTypes: ['audio/mpeg'] });
    expect([mixed.status, mixed.body.error.code, mixed.body.error.details.problems[0].path]).toEqual([
      400,
      'invalid_payload',
      'allowedMimeTypes[0]',
    ]);
    const unknownField = await json('POST', '/api/v1/mediasets', dana, { name: 'x', schema: 'image', colour: 'red' });
    expect([unknownField.status, unknownField.body.error.code]).toEqual([400, 'invalid_payload']);

    const byMember = await json('POST', '/api/v1/mediasets', mo, { name: 'Mine', schema: 'any' });
    expect([byMember.status, byMember.body.error.code]).toEqual([403, 'forbidden']);
    // Mo (a member without a grant) and Gus (another company) have no role: the set does not exist for them.
    for (const key of [mo, gus]) {
      const res = await json('GET', `/api/v1/mediasets/${set.rid}`, key);
      expect([res.status, res.body.error.code]).toEqual([404, 'media_set_not_found']);
      expect((await json('GET', '/api/v1/mediasets', key)).body.data.data.map((s: { rid: string }) => s.rid)).not.toContain(set.rid);
    }
    const missing = await json('GET', '/api/v1/mediasets/ri.mio.svc.media-set.00000000-0000-0000-0000-000000000000', dana);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'media_set_not_found']);
  });

  it('a Viewer grant reads but cannot put; an Editor grant puts', async () => {
    const rid = await newSet();
    const item = await putOk(rid, 'a.png', 'png bytes');
    const grant = (role: string) => json('POST', `/api/v1/filesystem/resources/${rid}/roles/add`, dana, { principal: 'cell-acme', role });
    expect((await grant('viewer')).status).toBe(200);
    expect((await json('GET', `/api/v1/mediasets/${rid}/items/${item}`, mo)).status).toBe(200);
    expect(await (await content(rid, item, {}, mo)).text()).toBe('png bytes');
    const refused = await put(rid, 'b.png', 'x', { key: mo });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    expect((await grant('editor')).status).toBe(200);
    await putOk(rid, 'b.png', 'x', { key: mo });
  });

  it('a marking on the set hides it from everyone not cleared for it, its Viewers included', async () => {
    const rid = await newSet();
    const item = await putOk(rid, 'secret.png', 'secret');
    expect(
      (await json('POST', `/api/v1/filesystem/resources/${rid}/roles/add`, dana, { principal: 'cell-acme', role: 'viewer' })).status,
    ).toBe(200);
    const category = await json('POST', '/api/v1/admin/markingCategories', dana, { name: 'Media secrecy', categoryType: 'CONJUNCTIVE' });
    const me = (await json('GET', '/api/v1/admin/users/me', dana)).body.data.id;
    const marking = await json('POST', '/api/v1/admin/markings', dana, {
      categoryId: category.body.data.id,
      name: 'Media secret',
      initialRoleAssignments: [{ principalType: 'USER', principalId: me, role: 'ADMINISTER' }],
    });
    expect(marking.status, JSON.stringify(marking.body)).toBe(201);
    expect((await json('GET', `/api/v1/mediasets/${rid}/items/${item}`, mo)).status).toBe(200);
    const marked = await json('POST', `/api/v1/filesystem/resources/${rid}/addMarkings`, dana, { markingIds: [marking.body.data.id] });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    for (const path of [`/api/v1/mediasets/${rid}`, `/api/v1/mediasets/${rid}/items/${item}`, `/api/v1/mediasets/${rid}/items`]) {
      const res = await json('GET', path, mo);
      expect([res.status, res.body.error.code], path).toEqual([404, 'media_set_not_found']);
    }
    expect((await content(rid, item, {}, mo)).status).toBe(404);
    expect((await json('GET', '/api/v1/mediasets', mo)).body.data.data.map((s: { rid: string }) => s.rid)).not.toContain(rid);
    // Dana holds ADMINISTER on the marking: cleared, she still reads and writes.
    expect(await (await content(rid, item)).text()).toBe('secret');
    await putOk(rid, 'more.png', 'x');
  });

  it('puts items by path, replaces the item at a path, reads info and rid by path, and pages the listing', async () => {
    const rid = await newSet();
    const first = await putOk(rid, 'photos/a.png', 'first');
    const info = await json('GET', `/api/v1/mediasets/${rid}/items/${first}`, dana);
    expect(info.body.data).toMatchObject({
      mediaItemRid: first,
      mediaSetRid: rid,
      path: 'photos/a.png',
      branchName: 'main',
      mimeType: 'image/png',
      sizeBytes: 5,
      transactionId: null,
    });
    const second = await putOk(rid, 'photos/a.png', 'second');
    expect((await json('GET', `/api/v1/mediasets/${rid}/items/getRidByPath?mediaItemPath=photos/a.png`, dana)).body.data).toEqual({
      mediaItemRid: second,
    });
    expect((await json('GET', `/api/v1/mediasets/${rid}/items/${first}`, dana)).body.error.code).toBe('media_item_not_found');
    const absent = await json('GET', `/api/v1/mediasets/${rid}/items/getRidByPath?mediaItemPath=nope.png`, dana);
    expect([absent.status, absent.body.error.code]).toEqual([404, 'media_item_not_found']);
    const noPath = await json('GET', `/api/v1/mediasets/${rid}/items/getRidByPath`, dana);
    expect([noPath.status, noPath.body.error.code]).toEqual([400, 'missing_media_item_path']);

    for (const name of ['c.png', 'b.png', 'd.png']) await putOk(rid, name, name);
    const page1 = await json('GET', `/api/v1/mediasets/${rid}/items?pageSize=2`, dana);
    expect(page1.body.data.data.map((i: { path: string }) => i.path)).toEqual(['b.png', 'c.png']);
    const page2 = await json('GET', `/api/v1/mediasets/${rid}/items?pageSize=2&pageToken=${page1.body.data.nextPageToken}`, dana);
    expect(page2.body.data.data.map((i: { path: string }) => i.path)).toEqual(['d.png', 'photos/a.png']);
    expect(page2.body.data.nextPageToken).toBeNull();
    const badToken = await json('GET', `/api/v1/mediasets/${rid}/items?pageToken=***`, dana);
    expect(badToken.status).toBe(400);
  });

  it('puts an item under a rid the caller chooses, once: a rid an item has is refused before the body is stored', async () => {
    const rid = await newSet();
    const chosen = `ri.mio.svc.media-item.${crypto.randomUUID()}`;
    expect(await putOk(rid, 'mine.png', 'mine', { query: `&mediaItemRid=${chosen}` })).toBe(chosen);
    expect((await json('GET', `/api/v1/mediasets/${rid}/items/${chosen}`, dana)).body.data.path).toBe('mine.png');
    // Taken: at another path, at the same path (a replacement needs a new rid), in another set.
    const other = await newSet();
    for (const [set, path] of [
      [rid, 'other.png'],
      [rid, 'mine.png'],
      [other, 'mine.png'],
    ] as const) {
      const res = await put(set, path, 'again', { query: `&mediaItemRid=${chosen}` });
      expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
        409,
        'media_item_rid_already_exists',
        { mediaItemRid: chosen },
      ]);
    }
    expect(await paths(rid)).toEqual(['mine.png']);
    const malformed = await put(rid, 'x.png', 'x', { query: '&mediaItemRid=ri.mio.svc.media-set.00000000-0000-0000-0000-000000000000' });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'invalid_payload']);
  });

  it('refuses hostile paths with their reason, a missing path, and types the schema does not admit', async () => {
    const rid = await newSet({ allowedMimeTypes: ['image/png'] });
    const reasons: [string, string][] = [
      ['../escape.png', 'path_parent_segment'],
      ['a/../../b.png', 'path_parent_segment'],
      ['/abs.png', 'path_absolute'],
      ['a\\b.png', 'path_character'],
      ['.hidden.png', 'path_hidden'],
      ['a//b.png', 'path_empty_segment'],
      ['con.png', 'path_windows_reserved'],
      ['．．/x.png', 'path_compatibility_character'],
      ['x'.repeat(300), 'path_too_long'],
    ];
    for (const [path, reason] of reasons) {
      const res = await put(rid, path, 'x');
      expect([res.status, res.body.error.code], path).toEqual([400, 'media_item_path_invalid']);
      expect(
        res.body.error.details.problems.map((p: { code: string }) => p.code),
        path,
      ).toContain(reason);
    }
    // U+0000 is refused by the string rule every query passes, before the use case.
    const nul = await put(rid, 'a\u0000.png', 'x');
    expect([nul.status, nul.body.error.code]).toEqual([400, 'invalid_payload']);
    // Names that are keys of every JavaScript object are ordinary paths.
    for (const path of ['constructor', '__proto__/toString.png', 'hasOwnProperty']) await putOk(rid, path, path);
    // Names only bundles keep for themselves are ordinary media paths.
    for (const path of ['about/team.png', 'node_modules/x.png', 'svc.json']) await putOk(rid, path, path);
    expect(await paths(rid)).toEqual([
      '__proto__/toString.png',
      'about/team.png',
      'constructor',
      'hasOwnProperty',
      'node_modules/x.png',
      'svc.json',
    ]);

    const noPath = await svc.call('POST', `/api/v1/mediasets/${rid}/items`, {
      rawBody: Buffer.from('x'),
      headers: { ...bearer(dana), 'content-type': 'image/png' },
    });
    expect([noPath.status, noPath.body.error.code]).toEqual([400, 'missing_media_item_path']);
    for (const type of ['image/jpeg', 'text/html', 'image/svg+xml', 'nonsense']) {
      const res = await put(rid, 'x.png', 'x', { type });
      expect([res.status, res.body.error.code], type).toEqual([400, 'invalid_media_item_schema']);
    }
    expect((await put(rid, 'ok.png', 'x', { type: 'image/png; charset=binary' })).status).toBe(201);
  });

  it('serves content with a strong ETag, one range at a time, and headers that keep HTML from running', async () => {
    const rid = await newSet({ schema: 'any' });
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
    const item = await putOk(rid, 'data/blob.bin', bytes, { type: 'application/octet-stream' });
    const whole = await content(rid, item);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(bytes);
    const etag = whole.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    expect(whole.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''blob.bin");

    const cases: [string, number, string | null, Buffer][] = [
      ['bytes=0-0', 206, 'bytes 0-0/1000', bytes.subarray(0, 1)],
      ['bytes=10-19', 206, 'bytes 10-19/1000', bytes.subarray(10, 20)],
      ['bytes=990-', 206, 'bytes 990-999/1000', bytes.subarray(990)],
      ['bytes=-5', 206, 'bytes 995-999/1000', bytes.subarray(995)],
      ['bytes=999-5000', 206, 'bytes 999-999/1000', bytes.subarray(999)],
      ['bytes=0-999', 206, 'bytes 0-999/1000', bytes],
      ['bytes=1000-', 416, 'bytes */1000', Buffer.alloc(0)],
      ['bytes=0-1,5-6', 200, null, bytes],
      ['items=0-1', 200, null, bytes],
    ];
    for (const [range, status, contentRange, expected] of cases) {
      const res = await content(rid, item, { range });
      expect(res.status, range).toBe(status);
      expect(res.headers.get('content-range'), range).toBe(contentRange);
      expect(Buffer.from(await res.arrayBuffer()), range).toEqual(expected);
    }
    expect((await content(rid, item, { 'if-none-match': etag })).status).toBe(304);
    expect((await content(rid, item, { 'if-none-match': '"other"' })).status).toBe(200);

    // Same bytes at another path: one stored content, the same ETag.
    const copy = await putOk(rid, 'data/copy.bin', bytes, { type: 'application/octet-stream' });
    expect((await content(rid, copy)).headers.get('etag')).toBe(etag);
    const stored = await svc.database.db
      .selectFrom('blobs')
      .select('sha256')
      .where('sha256', '=', Buffer.from(etag.slice(1, -1), 'hex'))
      .execute();
    expect(stored).toHaveLength(1);

    const page = await putOk(rid, 'evil.html', '<script>alert(1)</script>', { type: 'text/html' });
    const html = await content(rid, page);
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(html.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(html.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
    const png = await putOk(rid, 'pic.png', 'png', { type: 'image/png' });
    expect((await content(rid, png)).headers.get('content-disposition')).toBe("inline; filename*=UTF-8''pic.png");
  });

  it('stages items in a transaction until the commit, one open transaction per branch, abort deletes', async () => {
    const rid = await newSet();
    await putOk(rid, 'keep.png', 'old');
    const open = await json('POST', `/api/v1/mediasets/${rid}/transactions`, dana);
    expect(open.status, JSON.stringify(open.body)).toBe(201);
    const tx = open.body.data.transactionId;
    expect(open.body.data).toMatchObject({ mediaSetRid: rid, branchName: 'main', state: 'OPEN' });
    const again = await json('POST', `/api/v1/mediasets/${rid}/transactions`, dana);
    expect([again.status, again.body.error.code, again.body.error.details.transactionId]).toEqual([
      409,
      'media_set_open_transaction_already_exists',
      tx,
    ]);

    const staged = await putOk(rid, 'keep.png', 'new', { query: `&transactionId=${tx}` });
    await putOk(rid, 'added.png', 'added', { query: `&transactionId=${tx}` });
    // Not visible before the commit.
    expect(await paths(rid)).toEqual(['keep.png']);
    expect((await json('GET', `/api/v1/mediasets/${rid}/items/${staged}`, dana)).body.error.code).toBe('media_item_not_found');

    const committed = await json('POST', `/api/v1/mediasets/${rid}/transactions/${tx}/commit`, dana);
    expect(committed.body.data).toMatchObject({ state: 'COMMITTED', itemCount: 2 });
    expect(await paths(rid)).toEqual(['added.png', 'keep.png']);
    expect(await (await content(rid, staged)).text()).toBe('new');
    const twice = await json('POST', `/api/v1/mediasets/${rid}/transactions/${tx}/commit`, dana);
    expect([twice.status, twice.body.error.code]).toEqual([409, 'conflict']);
    const late = await put(rid, 'late.png', 'x', { query: `&transactionId=${tx}` });
    expect([late.status, late.body.error.code]).toEqual([409, 'conflict']);

    const second = (await json('POST', `/api/v1/mediasets/${rid}/transactions`, dana)).body.data.transactionId;
    await putOk(rid, 'dropped.png', 'x', { query: `&transactionId=${second}` });
    const aborted = await json('POST', `/api/v1/mediasets/${rid}/transactions/${second}/abort`, dana);
    expect(aborted.body.data.state).toBe('ABORTED');
    expect(await paths(rid)).toEqual(['added.png', 'keep.png']);
    expect(await svc.database.db.selectFrom('media_items').select('id').where('transaction_id', '=', second).execute()).toEqual([]);
    // Two opens at once: one wins, the other is told which transaction is open.
    const racing = await Promise.all([1, 2].map(() => json('POST', `/api/v1/mediasets/${rid}/transactions`, dana)));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409]);
    const winner = racing.find((r) => r.status === 201)!.body.data.transactionId;
    expect(racing.find((r) => r.status === 409)!.body.error.details.transactionId).toBe(winner);
    const unknown = await json('POST', `/api/v1/mediasets/${rid}/transactions/00000000-0000-0000-0000-000000000000/commit`, dana);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'media_set_transaction_not_found']);
  });

  it('takes exactly 10,000 items in one transaction', async () => {
    const rid = await newSet();
    const tx = (await json('POST', `/api/v1/mediasets/${rid}/transactions`, dana)).body.data.transactionId;
    await putOk(rid, 'first.png', 'x', { query: `&transactionId=${tx}` });
    // The rest but one staged directly: the same rows the put writes.
    const { branch_id, sha256 } = await svc.database.db
      .selectFrom('media_items')
      .select(['branch_id', 'sha256'])
      .where('transaction_id', '=', tx)
      .executeTakeFirstOrThrow();
    const rows = Array.from({ length: MEDIA_LIMITS.itemsPerTransaction - 2 }, (_, i) => ({
      id: crypto.randomUUID(),
      branch_id,
      transaction_id: tx,
      visible: false,
      path: `bulk/${i}.png`,
      sha256,
      size: 1,
      mime_type: 'image/png',
    }));
    for (let i = 0; i < rows.length; i += 2000)
      await svc.database.db
        .insertInto('media_items')
        .values(rows.slice(i, i + 2000))
        .execute();
    await putOk(rid, 'last.png', 'x', { query: `&transactionId=${tx}` });
    // Replacing a staged path adds nothing: still allowed at the limit.
    await putOk(rid, 'last.png', 'y', { query: `&transactionId=${tx}` });
    const over = await put(rid, 'one-more.png', 'x', { query: `&transactionId=${tx}` });
    expect([over.status, over.body.error.code, over.body.error.details.limit]).toEqual([409, 'conflict', MEDIA_LIMITS.itemsPerTransaction]);
    const committed = await json('POST', `/api/v1/mediasets/${rid}/transactions/${tx}/commit`, dana);
    expect(committed.body.data.itemCount).toBe(MEDIA_LIMITS.itemsPerTransaction);
  });

  it('keeps branches apart and refuses a request that names a branch twice', async () => {
    const rid = await newSet();
    await putOk(rid, 'a.png', 'main');
    const tx = await json('POST', `/api/v1/mediasets/${rid}/transactions?branchName=draft`, dana);
    expect(tx.body.data.branchName).toBe('draft');
    await putOk(rid, 'b.png', 'draft', { query: `&transactionId=${tx.body.data.transactionId}` });
    // A transaction on draft is not one on main: main may open its own.
    expect((await json('POST', `/api/v1/mediasets/${rid}/transactions`, dana)).status).toBe(201);
    const onMain = await put(rid, 'c.png', 'x', { query: `&transactionId=${tx.body.data.transactionId}&branchName=main` });
    expect([onMain.status, onMain.body.error.code]).toEqual([400, 'conflicting_media_set_identifiers']);
    await json('POST', `/api/v1/mediasets/${rid}/transactions/${tx.body.data.transactionId}/commit`, dana);

    const set = (await json('GET', `/api/v1/mediasets/${rid}`, dana)).body.data;
    const draft = set.branches.find((b: { name: string }) => b.name === 'draft');
    expect(await paths(rid)).toEqual(['a.png']);
    expect(await paths(rid, '?branchName=draft')).toEqual(['b.png']);
    expect(await paths(rid, `?branchRid=${draft.rid}`)).toEqual(['b.png']);
    expect(await paths(rid, `?viewRid=${draft.viewRid}`)).toEqual(['b.png']);
    const both = await json('GET', `/api/v1/mediasets/${rid}/items?branchName=draft&viewRid=${draft.viewRid}`, dana);
    expect([both.status, both.body.error.code]).toEqual([400, 'conflicting_media_set_identifiers']);
    const none = await json('GET', `/api/v1/mediasets/${rid}/items?branchName=nope`, dana);
    expect([none.status, none.body.error.code]).toEqual([404, 'branch_not_found']);
  });

  it('stores items up to the database share and refuses larger ones without an S3 store; the direct put limit is exact', async () => {
    const rid = await newSet({ schema: 'any' });
    const at = Buffer.alloc(MEDIA_LIMITS.databaseItemBytes, 7);
    await putOk(rid, 'at-limit.bin', at, { type: 'application/octet-stream' });
    const over = await put(rid, 'over.bin', Buffer.alloc(MEDIA_LIMITS.databaseItemBytes + 1, 7), { type: 'application/octet-stream' });
    expect([over.status, over.body.error.code]).toEqual([422, 'media_upload_destination_not_configured']);
    const huge = await put(rid, 'huge.bin', Buffer.alloc(MEDIA_LIMITS.putItemBytes + 1), { type: 'application/octet-stream' });
    expect([huge.status, huge.body.error.code]).toEqual([413, 'payload_too_large']);
    expect(await paths(rid)).toEqual(['at-limit.bin']);
  });

  it('a web session creates and reads media sets; its writes must be same-origin', async () => {
    const cookie = await signIn(svc, 'dana');
    const res = await svc.call('POST', '/api/v1/mediasets', {
      body: { organization: 'cell-acme', name: 'Web', schema: 'video' },
      headers: browser(cookie, svc),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await svc.call('GET', `/api/v1/mediasets/${res.body.data.rid}`, { headers: browser(cookie, svc) })).status).toBe(200);
    // A put from another site (a form may send text/plain without a preflight) is refused with the cookie alone.
    const anySet = await svc.call('POST', '/api/v1/mediasets', {
      body: { organization: 'cell-acme', name: 'Any', schema: 'any' },
      headers: browser(cookie, svc),
    });
    const crossSite = await svc.call('POST', `/api/v1/mediasets/${anySet.body.data.rid}/items?mediaItemPath=a.txt`, {
      rawBody: Buffer.from('hello'),
      headers: { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
    });
    expect(crossSite.status).toBe(403);
    expect(await paths(anySet.body.data.rid)).toEqual([]);
  });
});
