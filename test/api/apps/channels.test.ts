import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundle } from '../../support/bundles.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
let dev: string;
let op: string;
let devAccount: { id: string };
let slugCounter = 0;

beforeAll(async () => {
  svc = await startTestService();
  const seeded = await seedCompanies(svc);
  op = seeded.op;
  devAccount = { id: seeded.accounts.dana };
  dev = await passwordKey(svc, 'dana');
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

/** A fresh app with the given versions uploaded in order. */
async function appWith(...versions: string[]): Promise<string> {
  const slug = `app-${++slugCounter}`;
  for (const v of versions) {
    const res = await svc.call('POST', `/api/v1/developer/apps/cell-acme/${slug}/versions`, {
      body: bundle(slug, v),
      headers: bearer(dev),
    });
    expect(res.status).toBe(201);
  }
  return slug;
}

const promote = (slug: string, channel: string, body: Record<string, unknown> = {}, key = dev) =>
  svc.call('POST', `/api/v1/developer/apps/cell-acme/${slug}/channels/${channel}`, { body, headers: bearer(key) });

async function statuses(slug: string): Promise<Record<string, string>> {
  const res = await svc.call('GET', `/api/v1/developer/apps/cell-acme/${slug}`, { headers: bearer(dev) });
  return Object.fromEntries(res.body.data.versions.map((v: { version: string; status: string }) => [v.version, v.status]));
}

describe('channels and the update status table', () => {
  it('untested -> testing (becomes the test pointer, release record)', async () => {
    const slug = await appWith('1.0.0');
    const res = await promote(slug, 'test', { version: '1.0.0', notes: 'first look' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ channel: 'test', action: 'enter_test', from: null, to: '1.0.0', changed: true });
    const app = (await svc.call('GET', `/api/v1/developer/apps/cell-acme/${slug}`, { headers: bearer(dev) })).body.data;
    expect(app.channels).toEqual({ test: '1.0.0', production: null });
    expect(app.releases).toEqual([
      { channel: 'test', action: 'enter_test', from: null, to: '1.0.0', by: 'dana', at: expect.any(String), notes: 'first look' },
    ]);
    expect(await statuses(slug)).toEqual({ '1.0.0': 'testing' });
  });

  it('testing -> tested when a newer version enters test; production takes a tested one -> live', async () => {
    const slug = await appWith('1.0.0', '1.1.0');
    await promote(slug, 'test', { version: '1.0.0' });
    await promote(slug, 'test', { version: '#2' });
    expect(await statuses(slug)).toEqual({ '1.0.0': 'tested', '1.1.0': 'testing' });
    const pub = await promote(slug, 'production', { version: '1.0.0' });
    expect(pub.body.data).toMatchObject({ action: 'publish', from: null, to: '1.0.0' });
    expect(await statuses(slug)).toEqual({ '1.0.0': 'live', '1.1.0': 'testing' });
  });

  it('live -> superseded when a newer version is published; rollback makes it rolled_back', async () => {
    const slug = await appWith('1.0.0', '1.1.0');
    await promote(slug, 'test', { version: '1.0.0' });
    await promote(slug, 'production');
    await promote(slug, 'test', { version: '1.1.0' });
    await promote(slug, 'production');
    expect(await statuses(slug)).toEqual({ '1.0.0': 'superseded', '1.1.0': 'live' });
    const back = await promote(slug, 'production', { version: '1.0.0', notes: 'bad release' });
    expect(back.body.data).toMatchObject({ action: 'rollback', from: '1.1.0', to: '1.0.0' });
    expect(await statuses(slug)).toEqual({ '1.0.0': 'live', '1.1.0': 'rolled_back' });
    const app = (await svc.call('GET', `/api/v1/developer/apps/cell-acme/${slug}`, { headers: bearer(dev) })).body.data;
    const releases = app.releases.map(
      (r: { channel: string; action: string; from: string | null; to: string }) => `${r.channel}:${r.action}:${r.from}->${r.to}`,
    );
    expect(releases).toEqual([
      'test:enter_test:null->1.0.0',
      'production:publish:null->1.0.0',
      'test:enter_test:1.0.0->1.1.0',
      'production:publish:1.0.0->1.1.0',
      'production:rollback:1.1.0->1.0.0',
    ]);
  });

  it('refuses production for a version never in test', async () => {
    const slug = await appWith('1.0.0', '2.0.0');
    await promote(slug, 'test', { version: '1.0.0' });
    const res = await promote(slug, 'production', { version: '2.0.0' });
    expect([res.status, res.body.error.code]).toEqual([409, 'conflict']);
    expect(await statuses(slug)).toEqual({ '1.0.0': 'testing', '2.0.0': 'untested' });
  });

  it('omitted version: newest upload for test, the test version for production; an empty test channel is refused', async () => {
    const slug = await appWith('1.0.0', '1.2.0');
    const empty = await promote(slug, 'production');
    expect([empty.status, empty.body.error.code]).toEqual([409, 'conflict']);
    expect((await promote(slug, 'test')).body.data.to).toBe('1.2.0');
    expect((await promote(slug, 'production')).body.data.to).toBe('1.2.0');
  });

  it('names versions by semantic version or build number, and says which one does not exist', async () => {
    const slug = await appWith('1.0.0', '1.0.1-beta.1');
    expect((await promote(slug, 'test', { version: '2' })).body.data.to).toBe('1.0.1-beta.1');
    expect((await promote(slug, 'test', { version: '#1' })).body.data.to).toBe('1.0.0');
    const missing = await promote(slug, 'test', { version: '#9' });
    expect(missing.body.error.details.problems).toEqual([{ path: 'version', code: 'not_found', message: 'this app has no build #9' }]);
  });

  it('leaves a channel already at that version as it is, without a record', async () => {
    const slug = await appWith('1.0.0');
    await promote(slug, 'test');
    const again = await promote(slug, 'test');
    expect(again.body.data).toMatchObject({ changed: false, action: null });
    const app = (await svc.call('GET', `/api/v1/developer/apps/cell-acme/${slug}`, { headers: bearer(dev) })).body.data;
    expect(app.releases).toHaveLength(1);
  });

  it('a dry run of a promotion changes nothing', async () => {
    const slug = await appWith('1.0.0');
    const res = await svc.call('POST', `/api/v1/developer/apps/cell-acme/${slug}/channels/test`, {
      body: {},
      headers: { ...bearer(dev), 'x-svc-dry-run': 'true' },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.plan).toMatchObject({ action: 'enter_test', to: '1.0.0' });
    expect(await statuses(slug)).toEqual({ '1.0.0': 'untested' });
  });

  it('re-checks on every production call that the key owner is still a developer', async () => {
    const slug = await appWith('1.0.0');
    await promote(slug, 'test');
    await svc.call('PUT', `/api/v1/admin/users/${devAccount.id}/organizations/cell-acme`, {
      body: { role: 'member' },
      headers: bearer(op),
    });
    try {
      const res = await promote(slug, 'production');
      expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
    } finally {
      await svc.call('PUT', `/api/v1/admin/users/${devAccount.id}/organizations/cell-acme`, {
        body: { role: 'developer' },
        headers: bearer(op),
      });
    }
    expect((await promote(slug, 'production')).status).toBe(200);
  });

  it('members cannot promote; unknown apps are app_not_found; bad channels invalid_path', async () => {
    const slug = await appWith('1.0.0');
    const memberKey = await passwordKey(svc, 'mo');
    expect((await promote(slug, 'test', {}, memberKey)).status).toBe(403);
    expect((await promote('no-such-app', 'test')).body.error.code).toBe('app_not_found');
    expect((await promote(slug, 'staging')).body.error.code).toBe('invalid_path');
  });

  it('gives page addresses under the developer and production bases', async () => {
    const slug = await appWith('1.0.0');
    const res = await svc.call('GET', `/api/v1/developer/apps/cell-acme/${slug}`, { headers: bearer(dev) });
    const { developerBase, productionBase } = svc.addresses;
    expect(res.body.data.pages.test.address).toBe(`${developerBase}/cell-acme/apps/${slug}`);
    expect(res.body.data.pages.production).toMatchObject({
      address: `${productionBase}/cell-acme/apps/${slug}`,
      about: `${productionBase}/cell-acme/apps/${slug}/about`,
      aboutMarkdown: `${productionBase}/cell-acme/apps/${slug}/about.md`,
    });
    expect(res.body.data.pages.production.skills).toHaveLength(1); // the generated skill
  });
});
