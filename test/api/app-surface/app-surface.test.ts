import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../support/clock.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// apis, about, card and registry over HTTP: what an app offers, described from its manifest, its
// bundle analysis and its app log; the card's 7-day use counts real opens of the entry page.

const clock = new TestClock('2026-11-10T09:00:00Z');
let svc: TestService;
let dev: string;
let member: string;
let gus: string;
const BASE = '/api/v1/developer/apps/cell-acme/orders';

const manifest = {
  summary: 'Find and follow orders',
  examples: ['show open orders of ACME'],
  owner: { department: 'Sales', team: 'Inside sales' },
  sdk: ['semantic', 'ui'],
  semantic: { types: ['sales.Order'], actions: ['sales.closeOrder'], write: [] },
  models: ['gpt-small'],
  exports: [
    {
      name: 'open_orders',
      title: 'Open orders',
      description: 'Orders not yet shipped',
      kind: 'query',
      type: 'sales.Order',
      input: { customer: { type: 'text', required: true, description: 'Customer id' }, since: { type: 'date' } },
      where: { status: 'open' },
      select: ['id', 'total'],
      limit: 50,
    },
  ],
};
const files = [
  {
    path: 'index.html',
    encoding: 'utf8' as const,
    content: '<!doctype html><link rel="stylesheet" href="/developer/sdk/v1/ui.css"><p>orders</p>',
  },
];

beforeAll(async () => {
  svc = await startTestService({ clock });
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  member = await passwordKey(svc, 'mo');
  gus = await passwordKey(svc, 'gus');
  await release(svc, dev, { namespace: 'cell-acme', slug: 'orders', version: '1.0.0', manifest, files });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'quiet', version: '0.1.0' }, 'test');
}, 60_000);
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const get = (path: string, key: string) => svc.call('GET', path, { headers: bearer(key) });

describe('GET …/apis', () => {
  it('lists the exports with input JSON Schema, return, call route and MCP tool name, the skills and sample phrases', async () => {
    const res = await get(`${BASE}/apis`, member);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ app: { namespace: 'cell-acme', slug: 'orders' }, channel: 'production', version: '1.0.0' });
    expect(res.body.data.examples).toEqual(['show open orders of ACME']);
    expect(res.body.data.skills.length).toBe(1);
    expect(res.body.data.apis).toEqual([
      {
        name: 'open_orders',
        title: 'Open orders',
        description: 'Orders not yet shipped',
        kind: 'query',
        write: false,
        input: {
          type: 'object',
          properties: {
            customer: { type: 'string', description: 'Customer id' },
            since: { type: 'string', format: 'date', pattern: expect.any(String) },
          },
          required: ['customer'],
          additionalProperties: false,
        },
        returns: {
          type: 'object',
          properties: {
            data: {
              type: 'array',
              maxItems: 50,
              items: { type: 'object', properties: { id: {}, total: {} }, description: 'sales.Order objects' },
            },
          },
          required: ['data'],
        },
        route: '/api/v1/developer/apps/cell-acme/orders/apis/open_orders/execute',
        mcpTool: 'open_orders',
      },
    ]);
  });

  it('refuses a key of another company and a member on the test channel', async () => {
    expect((await get(`${BASE}/apis`, gus)).status).toBe(403);
    expect((await get(`${BASE}/apis?channel=test`, member)).status).toBe(403);
    expect((await get(`${BASE}/apis?channel=test`, dev)).status).toBe(200);
    expect((await get('/api/v1/developer/apps/cell-acme/nope/apis', dev)).body.error.code).toBe('app_not_found');
  });
});

describe('GET …/about', () => {
  it('answers the about.md Markdown with the APIs and the MCP address, and the line to copy', async () => {
    const res = await get(`${BASE}/about`, member);
    expect(res.status).toBe(200);
    const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/orders/about.md`);
    expect(res.body.data.markdown).toBe(page.text);
    expect(res.body.data.markdown).toContain('- `open_orders`: Open orders. Orders not yet shipped');
    expect(res.body.data.markdown).toContain(`${svc.url}/api/v1/developer/apps/cell-acme/orders/mcp`);
    expect(res.body.data.copy).toBe(`App orders: Find and follow orders ${svc.addresses.productionBase}/cell-acme/apps/orders/about.md`);
  });
});

describe('GET …/card and the registry', () => {
  it('counts the opens of the last 7 UTC days and shows spend to developers only', async () => {
    const open = async (login: string) => {
      const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/orders`, { cookie: await signIn(svc, login) });
      expect(page.status).toBe(200);
      injected(page.text);
    };
    clock.set('2026-11-10T09:00:00Z');
    await open('mo'); // 8 days before the card is read: outside the window
    clock.set('2026-11-12T09:00:00Z');
    await open('mo'); // 6 days before: inside
    clock.set('2026-11-18T08:00:00Z');
    await open('dana');
    await open('mo');
    clock.set('2026-11-18T12:00:00Z');
    await svc.deps.opens.flush();

    const card = await get(`${BASE}/card`, dev);
    expect(card.status, JSON.stringify(card.body)).toBe(200);
    expect(card.body.data).toEqual({
      app: { namespace: 'cell-acme', slug: 'orders', title: 'App orders', summary: 'Find and follow orders', category: 'general' },
      owner: { department: 'Sales', team: 'Inside sales', contact: null },
      version: { production: '1.0.0', test: '1.0.0', shown: '1.0.0' },
      sdk: { registered: ['semantic', 'ui'], used: ['ui'] },
      data: { read: ['sales.Order'], written: [], actions: ['sales.closeOrder'] },
      exports: ['open_orders'],
      dependencies: { models: ['gpt-small'], datasets: [], streams: [], cameras: [], cdn: [] },
      access: { scope: 'company', publicLink: 'signin' },
      use7d: { opens: 3, visitors: 2 },
      spend: { month: '2026-11', totalMicroUsd: 0 },
    });
    const asMember = await get(`${BASE}/card`, member);
    expect(asMember.body.data.spend).toBeNull();
    expect(asMember.body.data.use7d).toEqual({ opens: 3, visitors: 2 });
    expect((await get(`${BASE}/card`, gus)).status).toBe(403);

    const registry = await get('/api/v1/developer/registry', member);
    expect(registry.status).toBe(200);
    expect(registry.body.data.rows).toEqual([
      expect.objectContaining({
        slug: 'orders',
        department: 'Sales',
        version: '1.0.0',
        sdk: { registered: ['semantic', 'ui'], used: ['ui'] },
        access: { scope: 'company', publicLink: 'signin' },
        exports: ['open_orders'],
        use7d: { opens: 3, visitors: 2 },
      }),
      expect.objectContaining({ slug: 'quiet', version: '0.1.0', production: null, use7d: { opens: 0, visitors: 0 } }),
    ]);
    expect((await get('/api/v1/developer/registry', gus)).body.data.rows).toEqual([]);
  });
});
