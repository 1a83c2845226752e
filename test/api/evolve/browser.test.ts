import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../support/browser.ts';
import { EVOLVE_MANIFEST, evolveFiles } from '../../support/evolve.ts';
import { release } from '../../support/hosting.ts';
import { bearer, passwordKey, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { signedIn as signedInAs } from '../../support/web-sign-in.ts';

// The evolve loop end to end in Chromium (issue 33): a member's feedback on a slot, sent by the
// app's page through the SDK, becomes a suggestion; an agent author's proposal cannot be applied
// by the agent; a developer applies the suggestion from a web session; the member's next open
// shows the change without a redeploy, and the feedback is done.

let svc: TestService;
let browser: Browser;
let dev: string;
const E = '/api/v1/developer/evolve/cell-acme';

/** The page: its header's token as the browser computes it, the SDK's overlay, and (with #feedback) feedback on the header. */
const appScript = (baseUrl: string) => `
import('${baseUrl}/developer/sdk/v1/semantic.js').then(async ({ createClient }) => {
  const svc = createClient();
  const overlay = await svc.evolve.overlay();
  const feedback = location.hash === '#feedback' ? await svc.log.feedback({ topic: 'header', message: 'too dark' }) : null;
  const header = document.querySelector('[data-evolve="header"]');
  const hue = getComputedStyle(header).getPropertyValue('--accent-hue').trim();
  document.getElementById('out').textContent = JSON.stringify({ hue, overlay, feedback });
  document.title = 'ran';
});`;

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'tuned',
    version: '1.0.0',
    manifest: { ...EVOLVE_MANIFEST, sdk: ['semantic', 'evolve'] },
    files: [
      { path: 'index.html', encoding: 'utf8', content: evolveFiles()[0]!.content.replace('<main>', '<main><pre id="out"></pre>') },
      { path: 'app.js', encoding: 'utf8', content: appScript(svc.url!) },
    ],
  });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

const signedIn = <T>(login: string, fn: (page: Page) => Promise<T>) => signedInAs(browser, svc.url!, login, fn);

/** Opens the app as the signed-in visitor and answers what its page saw. */
async function open(page: Page, hash = '') {
  await page.goto(`${svc.addresses.productionBase}/cell-acme/apps/tuned${hash}`);
  await expect.poll(() => page.title()).toBe('ran');
  return JSON.parse((await page.locator('#out').textContent())!) as {
    hue: string;
    overlay: { improvements: string[]; tokens: { value: number }[] };
    feedback: { ids: string[] } | null;
  };
}

describe('the evolve loop in Chromium', () => {
  it('feedback → suggestion → applied from a web session → seen on the next open → feedback done', { timeout: 90_000 }, async () => {
    // The member's feedback on the header, from the app's own page.
    const before = await signedIn('mo', (page) => open(page, '#feedback'));
    expect(before.hue).toBe('200deg');
    expect(before.overlay.improvements).toEqual([]);
    const feedbackId = before.feedback!.ids[0]!;

    const suggested = await svc.call('POST', `${E}/suggest`, { body: { slug: 'tuned' }, headers: bearer(dev) });
    expect(suggested.status, JSON.stringify(suggested.body)).toBe(201);
    const [proposal] = suggested.body.data.proposals;
    expect(proposal.evidence).toEqual([feedbackId]);
    const value = proposal.changes[0].value as number;

    // An agent author proposes too, and cannot apply its own proposal (nor the suggestion).
    const agent = { ...bearer(dev), 'x-author': 'agent:tuner' };
    const own = await svc.call('POST', `${E}/proposals`, {
      body: { slug: 'tuned', title: 'Agent’s idea', changes: [{ kind: 'slot', slot: 'footer', hidden: true }] },
      headers: agent,
    });
    expect(own.status).toBe(201);
    for (const id of [own.body.data.id, proposal.id]) {
      const refused = await svc.call('POST', `${E}/proposals/${id}/apply`, { headers: agent });
      expect(refused.status).toBe(403);
    }

    // The developer applies the suggestion from her web session (the browser's cookie, same origin).
    const applied = await signedIn('dana', (page) =>
      page.evaluate(async (path) => {
        const res = await fetch(path, { method: 'POST' });
        return { status: res.status, body: (await res.json()) as { data: { improvement: string } } };
      }, `${E}/proposals/${proposal.id}/apply`),
    );
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);

    // No redeploy: the member's next open shows it, in the page's CSS and in the SDK's overlay.
    const after = await signedIn('mo', (page) => open(page));
    expect(after.hue).toBe(`${value}deg`);
    expect(after.overlay.improvements).toEqual([applied.body.data.improvement]);
    const versions = await svc.call('GET', '/api/v1/developer/apps/cell-acme/tuned', { headers: bearer(dev) });
    expect(JSON.stringify(versions.body.data)).not.toContain('1.0.1');

    const done = await svc.call('GET', '/api/v1/developer/log/cell-acme/events?slug=tuned&kind=feedback', { headers: bearer(dev) });
    expect(done.body.data.events.find((e: { id: string }) => e.id === feedbackId)).toMatchObject({ status: 'done' });
  });
});
