import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * A fresh browser context on the service at `origin`, with three checks every page test gets:
 * - any other host is answered here, never by the network, so leaving the site shows as that
 *   host's address (not a DNS error page) and is reported;
 * - every request with a body says `Content-Type: application/json` (the API refuses JSON bodies without it);
 * - nothing breaks the pages' Content-Security-Policy (an inline script or style would be refused).
 */
export async function withPage<T>(browser: Browser, origin: string, fn: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext();
  const offsite: string[] = [];
  const untyped: string[] = [];
  const cspViolations: string[] = [];
  await context.route(
    (url) => url.origin !== origin,
    (route) => {
      offsite.push(route.request().url());
      return route.fulfill({ contentType: 'text/html', body: '<p>another site</p>' });
    },
  );
  try {
    const page = await context.newPage();
    page.on('request', (request) => {
      if (request.postData() !== null && !request.headers()['content-type']?.startsWith('application/json')) {
        untyped.push(`${request.method()} ${request.url()}`);
      }
    });
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
    });
    const result = await fn(page);
    expect({ offsite, untyped, cspViolations }).toEqual({ offsite: [], untyped: [], cspViolations: [] });
    return result;
  } finally {
    await context.close();
  }
}
