import type { AppPages, CatalogEntry } from '../../domain/hosting/index.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A platform page in the trees: no script, the sign-in pages' stylesheet. */
export function platformPage(baseUrl: string, title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · svc</title>
<link rel="stylesheet" href="${escapeHtml(baseUrl)}/web/assets/web.css">
</head>
<body><main>
${body}
</main></body>
</html>`;
}

const link = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;

export function catalogPage(baseUrl: string, heading: string, entries: readonly CatalogEntry[]): string {
  const items = entries.map(
    (e) =>
      `<li>${link(e.address, e.title)} <small>${escapeHtml(e.version)}</small> · ${link(e.about, 'about')}` +
      `${e.summary ? `<br>${escapeHtml(e.summary)}` : ''}</li>`,
  );
  return platformPage(
    baseUrl,
    heading,
    `<h1>${escapeHtml(heading)}</h1>\n${items.length ? `<ul>\n${items.join('\n')}\n</ul>` : '<p>No apps yet.</p>'}`,
  );
}

export function aboutPage(baseUrl: string, p: AppPages): string {
  const parts = [`<h1>${escapeHtml(p.title)}</h1>`, `<p><small>Version ${escapeHtml(p.version)}</small></p>`];
  if (p.summary) parts.push(`<p>${escapeHtml(p.summary)}</p>`);
  if (p.description) parts.push(`<p>${escapeHtml(p.description)}</p>`);
  if (p.hasInterface) parts.push(`<p>${link(p.pages.address, 'Open the app')} (sign-in required)</p>`);
  if (p.examples.length) parts.push('<h2>Try saying</h2>', `<ul>${p.examples.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>`);
  if (p.skills.length) {
    parts.push(
      '<h2>Skills</h2>',
      `<ul>${p.skills.map((s, i) => `<li>${link(p.pages.skills[i]!, s.name)}: ${escapeHtml(s.description)}</li>`).join('')}</ul>`,
    );
  }
  parts.push(`<p>${link(p.pages.aboutMarkdown, 'about.md')} (for agents)</p>`);
  return platformPage(baseUrl, p.title, parts.join('\n'));
}

export function messagePage(
  baseUrl: string,
  heading: string,
  lines: readonly string[],
  links: readonly { href: string; text: string }[] = [],
): string {
  const body = [
    `<h1>${escapeHtml(heading)}</h1>`,
    ...lines.map((l) => `<p>${escapeHtml(l)}</p>`),
    ...links.map((l) => `<p>${link(l.href, l.text)}</p>`),
  ];
  return platformPage(baseUrl, heading, body.join('\n'));
}

const HEAD = /<head(?:\s[^>]*)?>/i;
const HTML = /<html(?:\s[^>]*)?>/i;
const DOCTYPE = /^\s*<!doctype[^>]*>/i;

/**
 * The entry page with the version's `<base>`, its app and (for a signed-in visitor) the app
 * ticket, as the first elements of the head so that every relative address in the page resolves
 * to the version's files. An anonymous visitor's page carries no ticket: its SDK sends nothing.
 */
export function injectIntoEntry(
  html: string,
  baseHref: string,
  app: { namespace: string; slug: string },
  ticket?: { ticket: string; expiresAt: Date },
): string {
  // The SDK reads the ticket, its app (for renewal) and its expiry (to renew in time).
  const injected =
    `<base href="${escapeHtml(baseHref)}">` +
    (ticket ? `<meta name="svc-app-ticket" content="${escapeHtml(ticket.ticket)}">` : '') +
    `<meta name="svc-app" content="${escapeHtml(`${app.namespace}/${app.slug}`)}">` +
    (ticket ? `<meta name="svc-app-ticket-expires" content="${ticket.expiresAt.toISOString()}">` : '');
  for (const pattern of [HEAD, HTML, DOCTYPE]) {
    const m = pattern.exec(html);
    if (m) return html.slice(0, m.index + m[0].length) + injected + html.slice(m.index + m[0].length);
  }
  return injected + html;
}
