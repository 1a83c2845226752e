import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { release } from '../../support/hosting.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { openSse, type SseStream } from '../../support/sse.ts';

// Following the app log as server-sent events (spec Events: app log records; issue 35 Deliver 3,
// `svc logs --follow`): records in order, filters, resume by event id, developers of the company
// only, and the end of the stream when the key is revoked.

let svc: TestService;
let dev: string;
let memberKey: string;
let gusKey: string;
const LOG = '/api/v1/developer/log/cell-acme';
const streams: SseStream[] = [];

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  gusKey = await passwordKey(svc, 'gus');
  await release(svc, dev, { namespace: 'cell-acme', slug: 'hello', version: '1.0.0' });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'other', version: '1.0.0' });
  await release(svc, gusKey, { namespace: 'cell-globex', slug: 'hello', version: '1.0.0' });
}, 60_000);
afterAll(async () => {
  for (const s of streams) s.close();
  await svc.close();
});
beforeEach(() => resetRateLimits(svc));

const follow = async (query: string, headers: Record<string, string> = bearer(dev), namespace = LOG) => {
  const stream = await openSse(`${svc.url}${namespace}/events/stream?${query}`, undefined, headers);
  streams.push(stream);
  return stream;
};
const track = async (name: string, slug = 'hello', key = dev, namespace = LOG) => {
  const res = await svc.call('POST', `${namespace}/events`, { body: { slug, events: [{ kind: 'usage', name }] }, headers: bearer(key) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
};
/** The next `log` event's `kind/name`. */
const nextRecord = async (stream: SseStream) => {
  const e = await stream.next();
  expect(e.event).toBe('log');
  return `${e.data.kind}/${e.data.name}`;
};

describe('the app log event stream', () => {
  it('sends the records written from now on, in order, of the app asked for only', async () => {
    await track('before');
    const stream = await follow('slug=hello');
    expect(stream.status, JSON.stringify(stream.body)).toBe(200);
    await track('first');
    await track('elsewhere', 'other');
    await track('second');
    await track('third');
    expect([await nextRecord(stream), await nextRecord(stream), await nextRecord(stream)]).toEqual([
      'usage/first',
      'usage/second',
      'usage/third',
    ]);
    stream.close();
  });

  it('filters by kind and from, and resumes after the event id sent (Last-Event-ID or ?after=)', async () => {
    const from = new Date().toISOString();
    await track('old-enough');
    await svc.call('POST', `${LOG}/events`, {
      body: { slug: 'hello', events: [{ kind: 'feedback', topic: 'search', rating: 4, message: 'More filters' }] },
      headers: bearer(dev),
    });
    const feedback = await follow(`slug=hello&kind=feedback&from=${encodeURIComponent(from)}`);
    const first = await feedback.next();
    expect(first.data).toMatchObject({ kind: 'feedback', name: 'search', app: 'hello', data: { rating: 4 } });
    feedback.close();

    const all = await follow(`slug=hello&from=${encodeURIComponent(from)}`);
    expect([await nextRecord(all), await nextRecord(all)]).toEqual(['usage/old-enough', 'feedback/search']);
    const resumeAt = all.lastId()!;
    all.close();
    await track('after-close');
    const resumed = await follow('slug=hello', { ...bearer(dev), 'last-event-id': resumeAt });
    expect(await nextRecord(resumed)).toBe('usage/after-close');
    resumed.close();
    const byQuery = await follow(`slug=hello&after=${resumeAt}`);
    expect(await nextRecord(byQuery)).toBe('usage/after-close');
    byQuery.close();
  });

  it('is for the developers of the company: members, other companies and unknown fields are refused', async () => {
    const member = await follow('slug=hello', bearer(memberKey));
    expect([member.status, member.body.error.code]).toEqual([403, 'forbidden']);
    const outsider = await follow('slug=hello', bearer(gusKey));
    expect([outsider.status, outsider.body.error.code]).toEqual([403, 'forbidden']);
    const memberSession = await follow('slug=hello', browser(await signIn(svc, 'mo'), svc));
    expect(memberSession.status).toBe(403);
    const unknown = await follow('slug=hello&limit=5');
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'invalid_payload']);
    expect((await follow('slug=nope')).status).toBe(404);
    const badCursor = await follow('slug=hello&after=bm90LWEtY3Vyc29y');
    expect([badCursor.status, badCursor.body.error.code]).toEqual([400, 'invalid_payload']);
  });

  it('never leaks another company’s records: the whole namespace is the company’s own apps', async () => {
    const acme = await follow('');
    const globex = await follow('', bearer(gusKey), '/api/v1/developer/log/cell-globex');
    await track('acme-only', 'hello');
    await track('globex-only', 'hello', gusKey, '/api/v1/developer/log/cell-globex');
    await track('acme-other', 'other');
    expect([await nextRecord(acme), await nextRecord(acme)]).toEqual(['usage/acme-only', 'usage/acme-other']);
    expect(await nextRecord(globex)).toBe('usage/globex-only');
    acme.close();
    globex.close();
  });

  it('ends with `end` (401 unauthorized) when the key is revoked, and a developer web session may follow', async () => {
    const key = await passwordKey(svc, 'dana');
    const stream = await follow('slug=hello', bearer(key));
    expect(stream.status).toBe(200);
    const keys = await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(key) });
    const own = (keys.body.data.keys as { keyId: string; current: boolean }[]).find((k) => k.current);
    expect((await svc.call('DELETE', `/api/v1/developer/keys/${own!.keyId}`, { headers: bearer(key) })).status).toBe(200);
    const end = await stream.next();
    expect(end).toMatchObject({ event: 'end', data: { code: 'unauthorized', status: 401 } });
    await stream.ended;

    const web = await follow('slug=hello', browser(await signIn(svc, 'dana'), svc));
    expect(web.status).toBe(200);
    await track('seen-on-the-web');
    expect(await nextRecord(web)).toBe('usage/seen-on-the-web');
    web.close();
  });
});
