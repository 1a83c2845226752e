import type { Channel } from '../../domain/db/index.ts';
import type { AppPages, CatalogEntry, SharedEntry } from '../../domain/hosting/index.ts';
import { escapeHtml, link, name, type PageAccount, platformPage } from '../web/platform-page.ts';

/** A catalog: its own apps and, for a signed-in visitor, the apps of other companies shared with them. */
export function catalogPage(
  baseUrl: string,
  account: PageAccount,
  catalog: { company: string | null; channel: Channel },
  entries: readonly CatalogEntry[],
  shared: readonly SharedEntry[] = [],
): string {
  const test = catalog.channel === 'test' ? ' (test)' : '';
  // The company's name isolated on its own: its direction never reorders the words after it.
  const heading = catalog.company === null ? `Official apps${test}` : `${name(catalog.company)} apps${test}`;
  const title = catalog.company === null ? `Official apps${test}` : `${catalog.company} apps${test}`;
  const item = (e: CatalogEntry, from = '') =>
    `<li>${appLink(e)} <small>${escapeHtml(e.version)}</small>${from} · ${link(e.about, 'about')}` +
    `${e.summary ? `<br>${name(e.summary)}` : ''}</li>`;
  const list = (items: string[]) => `<ul class="apps">\n${items.join('\n')}\n</ul>`;
  const parts = [`<h1>${heading}</h1>`, entries.length ? list(entries.map((e) => item(e))) : '<p>No apps yet.</p>'];
  if (shared.length) {
    parts.push('<h2>Shared with you</h2>', list(shared.map((e) => item(e, ` · from ${name(e.company)}`))));
  }
  return platformPage(baseUrl, title, account, parts.join('\n'));
}

const appLink = (e: CatalogEntry) => `<a href="${escapeHtml(e.address)}">${name(e.title)}</a>`;

/** Who may open the app, in words, by its manifest's `auth.access` (the policy decides each visit). */
function openedBy(p: AppPages): string {
  if (p.owner === null) return 'Members of any company on svc, after signing in.';
  const company = name(p.owner);
  return p.access === 'restricted'
    ? `Developers of ${company} and the people it is shared with, after signing in.`
    : `Members of ${company} and the people it is shared with, after signing in.`;
}

const namesOrNone = (items: readonly string[]) => (items.length ? items.map(name).join(', ') : 'none');

/** The app page (`about`): what it is, whose, which version, what it uses, and how to open it. */
export function aboutPage(baseUrl: string, account: PageAccount, p: AppPages): string {
  const facts: [string, string][] = [
    ['Owner', p.owner === null ? 'svc (official app)' : name(p.owner)],
    ['Version', escapeHtml(p.version)],
    ['SDKs', namesOrNone(p.sdks)],
    ['Reads', namesOrNone(p.reads)],
    ['Writes', namesOrNone(p.writes)],
  ];
  const parts = [`<h1>${name(p.title)}</h1>`];
  if (p.summary) parts.push(`<p class="lead">${name(p.summary)}</p>`);
  if (p.description) parts.push(`<p>${name(p.description)}</p>`);
  parts.push(`<dl class="facts">${facts.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('')}</dl>`);
  parts.push('<h2>How to open it</h2>', '<ul>');
  if (p.hasInterface) parts.push(`<li>${link(p.pages.address, 'Open the app')}: ${openedBy(p)}</li>`);
  else parts.push('<li>No interface: its skills and APIs only.</li>');
  parts.push(`<li>AI hosts (MCP, sign-in through OAuth): <code>${escapeHtml(p.mcp)}</code></li>`);
  parts.push(`<li>Agents: ${link(p.pages.aboutMarkdown, 'about.md')}</li>`, '</ul>');
  if (p.examples.length) parts.push('<h2>Try saying</h2>', `<ul>${p.examples.map((e) => `<li>${name(e)}</li>`).join('')}</ul>`);
  if (p.skills.length) {
    parts.push(
      '<h2>Skills</h2>',
      `<ul>${p.skills.map((s, i) => `<li>${link(p.pages.skills[i]!, s.name)}: ${name(s.description)}</li>`).join('')}</ul>`,
    );
  }
  if (p.apis.length) {
    const api = (a: AppPages['apis'][number]) =>
      `<li><code>${escapeHtml(a.name)}</code>: ${name(a.title)}${a.description ? `. ${name(a.description)}` : ''}</li>`;
    parts.push('<h2>APIs</h2>', `<ul>${p.apis.map(api).join('')}</ul>`);
  }
  return platformPage(baseUrl, p.title, account, parts.join('\n'));
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
