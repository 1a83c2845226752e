import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordUsage } from '../../../domain/usage/index.ts';
import { EVOLVE_LIMITS } from '../../../schemas/evolve.ts';
import { EVOLVE_MANIFEST, evolveFiles } from '../../support/evolve.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Evolve over HTTP (issue 33): evidence, proposals and who may apply them, the limits,
// improvements, the overlay (as the API answers it and as the entry page carries it), suggestions,
// and every legacy path answering what its new path answers.

let svc: TestService;
let dev: string;
let member: string;
let web: Record<string, string>;
let memberId: string;
const E = '/api/v1/developer/evolve/cell-acme';
const APP = { namespace: 'cell-acme', slug: 'tuned' };
const appUrl = () => `${svc.addresses.productionBase}/cell-acme/apps/tuned`;

beforeAll(async () => {
  svc = await startTestService();
  const { accounts } = await seedCompanies(svc);
  memberId = accounts.mo;
  dev = await passwordKey(svc, 'dana');
  member = await passwordKey(svc, 'mo');
  web = browser(await signIn(svc, 'dana'), svc);
  await release(svc, dev, { ...APP, version: '1.0.0', manifest: EVOLVE_MANIFEST, files: evolveFiles() });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'plain', version: '1.0.0' });
}, 60_000);
afterAll(() => svc?.close());

async function feedback(topic: string, key = member): Promise<string> {
  const res = await svc.call('POST', '/api/v1/developer/log/cell-acme/events', {
    body: { slug: 'tuned', events: [{ kind: 'feedback', topic, rating: 2, message: 'too dark' }] },
    headers: bearer(key),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.ids[0];
}

const hue = (value: number) => [{ kind: 'token', token: '--accent-hue', value }];

async function propose(body: object, headers: Record<string, string> = bearer(dev)) {
  return svc.call('POST', `${E}/proposals`, { body: { slug: 'tuned', title: 'Warmer header', ...body }, headers });
}

async function proposalId(body: object): Promise<string> {
  const res = await propose(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}

const apply = (id: string, headers = web) => svc.call('POST', `${E}/proposals/${id}/apply`, { headers });
const overlayOf = async (key: string) => (await svc.call('GET', `${E}/apps/tuned/overlay`, { headers: bearer(key) })).body.data;
const improvementIds = async () =>
  (await svc.call('GET', `${E}/improvements?slug=tuned&limit=200`, { headers: bearer(dev) })).body.data.improvements.map(
    (i: { id: string }) => i.id,
  );

describe('evidence', () => {
  it('groups the feedback still to handle by declared slot, pages it, and is for developers only', async () => {
    const first = await feedback('header');
    const second = await feedback('top.colour');
    await feedback('unrelated');
    const res = await svc.call('GET', `${E}/evidence?slug=tuned&limit=2`, { headers: bearer(dev) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const header = res.body.data.slots.find((s: { slot: string }) => s.slot === 'header');
    expect(header).toEqual({ slot: 'header', tokens: ['--accent-hue'], openFeedback: 2, usage: 0 });
    expect(res.body.data.feedback.map((f: { slot: string | null }) => f.slot)).toEqual([null, 'header']);
    const next = await svc.call('GET', `${E}/evidence?slug=tuned&limit=2&cursor=${res.body.data.nextCursor}`, { headers: bearer(dev) });
    expect(next.body.data.feedback.map((f: { id: string }) => f.id)).toEqual([first]);
    expect(next.body.data.nextCursor).toBeNull();
    expect(res.body.data.feedback[1].id).toBe(second);
    const refused = await svc.call('GET', `${E}/evidence?slug=tuned`, { headers: bearer(member) });
    expect(refused.status).toBe(403);
  });
});

describe('proposals', () => {
  it('change only declared tokens within their range and declared slots', async () => {
    const out = await propose({ changes: hue(400) });
    expect(out.status).toBe(400);
    expect(out.body.error.details.problems).toEqual([expect.objectContaining({ path: 'changes.0.value', code: 'out_of_range' })]);
    const undeclared = await propose({ changes: [{ kind: 'slot', slot: 'sidebar', hidden: true }] });
    expect(undeclared.body.error.details.problems).toEqual([expect.objectContaining({ path: 'changes.0.slot', code: 'undeclared' })]);
    const script = await propose({ changes: [{ kind: 'slot', slot: 'footer', html: '<script>x()</script>' }] });
    expect(script.status).toBe(400);
    const plain = await svc.call('POST', `${E}/proposals`, {
      body: { slug: 'plain', title: 'x', changes: hue(10) },
      headers: bearer(dev),
    });
    expect(plain.status).toBe(400);
  });

  it('are applied by a developer’s web login only: neither a key nor the agent that wrote one', async () => {
    const fb = await feedback('header');
    const agent = await propose({ changes: hue(30), evidence: [fb] }, { ...bearer(dev), 'x-author': 'agent:tuner' });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    expect(agent.body.data.author).toEqual(expect.objectContaining({ kind: 'agent', agent: 'tuner' }));
    for (const headers of [{ ...bearer(dev), 'x-author': 'agent:tuner' }, bearer(dev), bearer(member)]) {
      expect((await apply(agent.body.data.id, headers)).status).toBe(403);
    }
    const applied = await apply(agent.body.data.id);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.data).toEqual(expect.objectContaining({ status: 'applied', improvement: expect.stringMatching(/^evi_/) }));
    expect((await apply(agent.body.data.id)).status).toBe(409);
    // The feedback it answered is done.
    const log = await svc.call('GET', `/api/v1/developer/log/cell-acme/events?slug=tuned&kind=feedback&status=done`, {
      headers: bearer(dev),
    });
    expect(log.body.data.events.map((e: { id: string }) => e.id)).toEqual([fb]);
    expect((await overlayOf(member)).tokens).toEqual([{ slot: 'header', token: '--accent-hue', value: 30, unit: 'deg' }]);
  });

  it('are rejected by a web login, and listed by status', async () => {
    const id = await proposalId({ changes: hue(99) });
    expect((await svc.call('POST', `${E}/proposals/${id}/reject`, { headers: bearer(dev) })).status).toBe(403);
    const rejected = await svc.call('POST', `${E}/proposals/${id}/reject`, { headers: web });
    expect(rejected.body.data.status).toBe('rejected');
    const list = await svc.call('GET', `${E}/proposals?slug=tuned&status=rejected`, { headers: bearer(dev) });
    expect(list.body.data.proposals.map((p: { id: string }) => p.id)).toEqual([id]);
    expect((await svc.call('GET', `${E}/proposals/${id}`, { headers: bearer(dev) })).body.data.status).toBe('rejected');
    expect((await svc.call('GET', `/api/v1/developer/evolve/cell-globex/proposals/${id}`, { headers: bearer(dev) })).status).toBe(403);
  });

  it('personal ones change only their person’s view; an app page proposes only for its own visitor', async () => {
    const page = await rawGet(appUrl(), { cookie: await signIn(svc, 'mo') });
    const { ticket } = injected(page.text);
    const company = await propose({ changes: hue(5) }, bearer(ticket));
    expect(company.status).toBe(403);
    const own = await propose({ scope: 'personal', changes: [{ kind: 'slot', slot: 'footer', text: 'Mine <3' }] }, bearer(ticket));
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect(own.body.data).toEqual(
      expect.objectContaining({ scope: 'personal', account: memberId, author: expect.objectContaining({ kind: 'member' }) }),
    );
    expect((await apply(own.body.data.id)).status).toBe(200);
    expect((await overlayOf(member)).slots).toEqual([{ slot: 'footer', text: 'Mine <3' }]);
    expect((await overlayOf(dev)).slots).toEqual([]);
  });
});

describe('the entry page', () => {
  it('carries the visitor’s overlay at open time, as text and CSS only, under the same CSP', async () => {
    const mo = await rawGet(appUrl(), { cookie: await signIn(svc, 'mo') });
    expect(mo.status).toBe(200);
    expect(mo.text).toContain(':root [data-evolve="header"],:root [data-evolve="top"]{--accent-hue:30deg}');
    expect(mo.text).toContain('<p data-evolve="footer" id="footer">Mine &lt;3</p>');
    const dana = await rawGet(appUrl(), { cookie: await signIn(svc, 'dana') });
    expect(dana.text).toContain('Old <b>words</b>');
    // The same policy but for each visitor's own `_v/` address (its ticket's files secret).
    const policy = (csp: unknown) => String(csp).replace(/(_v\/[0-9a-f]{16})-[0-9a-z]+\//g, '$1-…/');
    expect(policy(dana.headers['content-security-policy'])).toBe(policy(mo.headers['content-security-policy']));
    expect(mo.headers['content-security-policy']).toMatch(/script-src [^;]*\/_v\/[0-9a-f]{16}-/);
    expect(mo.headers['content-security-policy']).not.toContain("script-src 'unsafe-inline'");
  });
});

describe('suggestions', () => {
  it('turn feedback on a slot into a proposal of its declared tokens that names the feedback', async () => {
    const fb = await feedback('--accent-hue');
    const res = await svc.call('POST', `${E}/suggest`, { body: { slug: 'tuned' }, headers: bearer(dev) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.model).toBe('local');
    const [proposal] = res.body.data.proposals;
    expect(proposal.author.kind).toBe('suggest');
    expect(proposal.evidence).toContain(fb);
    expect(proposal.changes).toEqual([{ kind: 'token', token: '--accent-hue', value: expect.any(Number) }]);
    expect(proposal.changes[0].value).toBeGreaterThanOrEqual(0);
    expect(proposal.changes[0].value).toBeLessThanOrEqual(360);
    // Feedback an open proposal answers is not suggested again.
    const again = await svc.call('POST', `${E}/suggest`, { body: { slug: 'tuned' }, headers: bearer(dev) });
    expect(again.body.data.proposals).toEqual([]);
  });

  it('count their model tokens against the app’s daily tokens, and are refused once those are spent', async () => {
    const tokens = async () =>
      (await svc.call('GET', '/api/v1/developer/apps/cell-acme/tuned/usage', { headers: bearer(dev) })).body.data.tokensToday;
    const before = await tokens();
    await feedback('--accent-hue');
    const suggested = await svc.call('POST', `${E}/suggest`, { body: { slug: 'tuned' }, headers: bearer(dev) });
    expect(suggested.status, JSON.stringify(suggested.body)).toBe(201);
    const after = await tokens();
    expect(after.used).toBeGreaterThan(before.used);
    // Today's tokens used up (as a workflow's model steps would): the next suggestion asks no model.
    const app = await svc.database.db.selectFrom('apps').select('id').where('slug', '=', 'tuned').executeTakeFirstOrThrow();
    await recordUsage(svc.database.db, [{ appId: app.id, meter: 'model.tokens', amount: after.limit - after.used, at: new Date() }]);
    try {
      await feedback('--accent-hue');
      const refused = await svc.call('POST', `${E}/suggest`, { body: { slug: 'tuned' }, headers: bearer(dev) });
      expect([refused.status, refused.body.error?.code]).toEqual([429, 'quota_exhausted']);
      expect((await tokens()).used).toBe(after.limit);
    } finally {
      // Today's tokens as this test found them, for the suggestions of the tests after it.
      await svc.database.db
        .updateTable('usage_counters')
        .set({ amount: after.used })
        .where('app_id', '=', app.id)
        .where('meter', '=', 'model.tokens')
        .execute();
    }
  });
});

/**
 * Improvements as applies leave them, written directly (the applies through HTTP are the other
 * tests): all but the last place of a limit, whose last place is then taken through the API.
 */
async function fillImprovements(count: number, account: string | null): Promise<void> {
  const app = await svc.database.db.selectFrom('apps').select('id').where('slug', '=', 'tuned').executeTakeFirstOrThrow();
  for (let n = 0; n < count; n++) {
    const id = `${account ?? 'company'}${String(n).padStart(6, '0')}`.replace(/[^0-9A-Za-z]/g, '');
    const row = {
      app_id: app.id,
      scope: account ? ('personal' as const) : ('company' as const),
      account_id: account,
      changes: JSON.stringify(hue(n)),
    };
    await svc.database.db
      .insertInto('evolve_proposals')
      .values({ ...row, id: `evp_${id}`, status: 'applied', author_kind: 'developer', author_account_id: memberId, title: 'Filler' })
      .execute();
    await svc.database.db
      .insertInto('evolve_improvements')
      .values({ ...row, id: `evi_${id}`, proposal_id: `evp_${id}`, created_by: memberId })
      .execute();
  }
}

describe('limits and improvements', () => {
  it(`refuses the company-wide improvement past ${EVOLVE_LIMITS.company}; a deleted one leaves the overlay`, {
    timeout: 60_000,
  }, async () => {
    const company = async () =>
      (await svc.call('GET', `${E}/improvements?slug=tuned&scope=company&limit=200`, { headers: bearer(dev) })).body.data.improvements;
    await fillImprovements(EVOLVE_LIMITS.company - 1 - (await company()).length, null);
    expect((await apply(await proposalId({ changes: hue(40) }))).status).toBe(200);
    const extra = await proposalId({ changes: hue(359) });
    const refused = await apply(extra);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual(
      expect.objectContaining({ code: 'improvement_limit_reached', details: expect.objectContaining({ scope: 'company', limit: 40 }) }),
    );
    const page = await svc.call('GET', `${E}/improvements?slug=tuned&scope=company&limit=25`, { headers: bearer(dev) });
    expect(page.body.data.improvements).toHaveLength(25);
    const rest = await svc.call('GET', `${E}/improvements?slug=tuned&scope=company&limit=25&cursor=${page.body.data.nextCursor}`, {
      headers: bearer(dev),
    });
    expect(rest.body.data.improvements).toHaveLength(EVOLVE_LIMITS.company - 25);
    const last = rest.body.data.improvements.at(-1).id;
    expect((await overlayOf(member)).improvements).toContain(last);
    const gone = await svc.call('DELETE', `${E}/improvements/${last}`, { headers: bearer(dev) });
    expect(gone.status).toBe(200);
    expect((await overlayOf(member)).improvements).not.toContain(last);
    expect(await improvementIds()).not.toContain(last);
    expect((await apply(extra)).status).toBe(200);
  });
});

describe('legacy paths', () => {
  it('answer what their new path answers, with Deprecation and a Link to it', async () => {
    const doc = (await svc.call('GET', '/api/v1/openapi.json')).body;
    const legacy = Object.entries(doc.paths as Record<string, Record<string, { deprecated?: boolean; summary: string }>>).flatMap(
      ([path, item]) =>
        Object.entries(item)
          .filter(([, op]) => op.deprecated && /\/developer\/(improve|evolve)\//.test(path))
          .map(([method, op]) => ({ path, method: method.toUpperCase(), summary: op.summary })),
    );
    // Eleven operations, each on the improve/ and the per-app evolve/ path.
    expect(legacy).toHaveLength(22);
    // Personal: the company-wide places are taken (above).
    const proposal = await proposalId({ scope: 'personal', account: memberId, changes: hue(12) });
    const improvement = (await improvementIds())[0];
    const values: Record<string, string> = { namespace: 'cell-acme', slug: 'tuned' };
    for (const { path, method, summary } of legacy) {
      await resetRateLimits(svc);
      const successor = /^Deprecated: use (\S+)\./.exec(summary)?.[1];
      expect(successor, summary).toBeDefined();
      const id = path.includes('/improvements/') ? improvement : proposal;
      const fill = (p: string) => p.replace(/\{(\w+)\}/g, (_, n: string) => (n === 'id' ? id : values[n]!));
      const bySlug = path.includes('/evolve/{namespace}/{slug}/');
      const query = method === 'GET' && !path.includes('{id}') && !path.endsWith('/overlay') ? '?slug=tuned' : '';
      const body =
        method !== 'POST' || path.includes('{id}')
          ? undefined
          : path.endsWith('/suggest')
            ? { slug: 'tuned' }
            : path.endsWith('/compile')
              ? { slug: 'tuned', version: '1.0.1' }
              : { slug: 'tuned', title: 'Legacy', changes: hue(1) };
      const { slug: _, ...legacyBody } = body ?? {};
      const headers = { ...(path.includes('/apply') || path.includes('/reject') ? web : bearer(dev)), 'x-svc-dry-run': 'true' };
      const old = await svc.call(method, fill(path) + (bySlug ? '' : query), {
        ...(body ? { body: bySlug ? legacyBody : body } : {}),
        headers,
      });
      const now = await svc.call(method, fill(successor!) + query, { ...(body ? { body } : {}), headers });
      expect(old.status, `${method} ${path}: ${JSON.stringify(old.body)}`).toBe(now.status);
      expect(old.status).toBeLessThan(300);
      expect(old.headers.get('deprecation')).toBe(`@${Date.parse('2026-11-27T00:00:00Z') / 1000}`);
      expect(old.headers.get('link')).toBe(`<${fill(successor!)}>; rel="successor-version"`);
      expect(now.headers.get('deprecation')).toBeNull();
      // Reads answer the same; writes (dry runs) the same plan but for what each new row is given.
      const same = (b: { data: unknown }) =>
        JSON.stringify(b.data).replace(/"[a-z]{2,4}_[0-9A-Za-z]{10,}"|"\d{4}-\d\d-\d\dT[^"]+"/g, '"…"');
      expect(same(old.body), `${method} ${path}`).toBe(same(now.body));
    }
  });
});

describe('compile', () => {
  it('uploads a version with the company-wide improvements folded in; published, they no longer apply at runtime', async () => {
    await resetRateLimits(svc);
    expect((await svc.call('POST', `${E}/compile`, { body: { slug: 'tuned', version: '1.1.0' }, headers: bearer(member) })).status).toBe(
      403,
    );
    const none = await svc.call('POST', `${E}/compile`, { body: { slug: 'plain', version: '1.1.0' }, headers: bearer(dev) });
    expect(none.status).toBe(409);
    const folded = (await overlayOf(dev)).improvements as string[];
    expect(folded).toHaveLength(EVOLVE_LIMITS.company);
    const res = await svc.call('POST', `${E}/compile`, { body: { slug: 'tuned', version: '1.1.0' }, headers: bearer(dev) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    for (const channel of ['test', 'production']) {
      const moved = await svc.call('POST', `/api/v1/developer/apps/cell-acme/tuned/channels/${channel}`, {
        body: { version: '1.1.0' },
        headers: bearer(dev),
      });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    }
    const overlay = await overlayOf(dev);
    expect(overlay).toEqual(expect.objectContaining({ version: '1.1.0', improvements: [], tokens: [] }));
    // The member's personal improvement still applies on the new version.
    expect((await overlayOf(member)).slots).toEqual([{ slot: 'footer', text: 'Mine <3' }]);
    const page = await rawGet(appUrl(), { cookie: await signIn(svc, 'dana') });
    expect(page.text.match(/data-svc-evolve/g)).toHaveLength(1);
    expect(page.text).toContain(`{--accent-hue:`);
  });
});

describe('personal limit', () => {
  it(`refuses a person’s personal improvement past ${EVOLVE_LIMITS.personal}, whatever other people hold`, async () => {
    const mine = async () =>
      (
        await svc.call('GET', `${E}/improvements?slug=tuned&scope=personal&limit=200`, { headers: bearer(dev) })
      ).body.data.improvements.filter((i: { account: string }) => i.account === memberId).length;
    await fillImprovements(EVOLVE_LIMITS.personal - 1 - (await mine()), memberId);
    const personal = (value: number) => proposalId({ scope: 'personal', account: memberId, changes: hue(value) });
    expect((await apply(await personal(1))).status).toBe(200);
    const refused = await apply(await personal(2));
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toEqual(expect.objectContaining({ scope: 'personal', limit: 20, account: memberId }));
    // Another person's view still has room.
    const other = await svc.database.db.selectFrom('accounts').select('id').where('username', '=', 'multi').executeTakeFirstOrThrow();
    expect((await apply(await proposalId({ scope: 'personal', account: other.id, changes: hue(3) }))).status).toBe(200);
  });
});
