import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

// The accessibility check of a page in Chromium, with axe-core. The platform pages' CSP (sandbox,
// no script) stops axe's timers, so the check loads the same address again, with the same cookies,
// in a context of its own that bypasses the CSP; the page under test keeps its CSP.

let source: Promise<string> | undefined;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * The serious and critical violations of the page at the address `page` shows, one line each (none
 * is the goal). A page its own script renders names the element that shows it is done (`ready`).
 */
export async function seriousViolations(page: Page, ready?: string): Promise<string[]> {
  source ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const context = await page
    .context()
    .browser()!
    .newContext({ bypassCSP: true, storageState: await page.context().storageState() });
  try {
    const checked = await context.newPage();
    await checked.goto(page.url());
    if (ready) await checked.locator(ready).first().waitFor({ state: 'attached', timeout: 60_000 });
    await checked.evaluate(await source);
    const violations = await checked.evaluate(
      async () => (await (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe.run()).violations,
    );
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  } finally {
    await context.close();
  }
}

/** Where page tests leave their screenshots, to be looked at (SVC_SCREENSHOTS, else a temp folder). */
export const SCREENSHOTS = process.env.SVC_SCREENSHOTS ?? join(tmpdir(), 'svc-screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
