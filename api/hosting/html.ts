import type { Channel } from '../../domain/db/index.ts';
import type { AppPages, CatalogEntry, SharedEntry } from '../../domain/hosting/index.ts';
import type { AppCard } from '../../schemas/app-surface.ts';
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
    `${e.card ? ` · ${link(e.card, 'card')}` : ''}` +
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

/** Terms and their values side by side (values already HTML). */
const factList = (facts: readonly [string, string][]) =>
  `<dl class="facts">${facts.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('')}</dl>`;

/** The app page (`about`): what it is, whose, which version, what it uses, and how to open it. */
export function aboutPage(baseUrl: string, account: PageAccount, p: AppPages, card?: string): string {
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
  parts.push(factList(facts));
  parts.push('<h2>How to open it</h2>', '<ul>');
  if (p.hasInterface) parts.push(`<li>${link(p.pages.address, 'Open the app')}: ${openedBy(p)}</li>`);
  else parts.push('<li>No interface: its skills and APIs only.</li>');
  parts.push(`<li>AI hosts (MCP, sign-in through OAuth): <code>${escapeHtml(p.mcp)}</code></li>`);
  parts.push(`<li>Agents: ${link(p.pages.aboutMarkdown, 'about.md')}</li>`);
  if (card) parts.push(`<li>Developers: ${link(card, 'the app card')} (versions, SDKs, dependencies, use and spend)</li>`);
  parts.push('</ul>');
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

const ACCESS_WORDS: Record<AppCard['access']['scope'], string> = {
  company: 'company: its members and the people it is shared with',
  restricted: 'restricted: its developers and the people it is shared with',
};
const LINK_WORDS: Record<AppCard['access']['publicLink'], string> = {
  signin: 'public links open read-only to anyone signed in',
  members: 'public links open only to company people and named shares',
};

/** US dollars from micro-dollars: cents, or more digits for amounts under a cent. */
const dollars = (micro: number) => `$${(micro / 1e6).toFixed(micro > 0 && micro < 10_000 ? 6 : 2)}`;

/**
 * The app card page for the company's developers (spec B, app card): owner, versions, registered
 * and used SDKs, data read and written, exports and dependencies, access, 7-day use and spend.
 */
export function cardPage(
  baseUrl: string,
  account: PageAccount,
  card: AppCard,
  links: { about: string; test: string; log: string; json: string },
): string {
  const { app, owner, version, sdk, data, dependencies: dep } = card;
  const ownerWords = [owner.department, owner.team && `team ${owner.team}`, owner.contact].filter((x): x is string => !!x);
  const sections: [string, [string, string][]][] = [
    [
      'Owner and versions',
      [
        ['Owner', ownerWords.length ? ownerWords.map(name).join(' · ') : 'not given in the manifest'],
        ['Production', version.production ? escapeHtml(version.production) : 'not published'],
        ['Test', version.test ? escapeHtml(version.test) : 'none'],
        ['Card of', escapeHtml(version.shown)],
      ],
    ],
    [
      'SDKs',
      [
        ['Registered', namesOrNone(sdk.registered)],
        ['Used by the files', namesOrNone(sdk.used)],
      ],
    ],
    [
      'Data',
      [
        ['Reads', namesOrNone(data.read)],
        ['Writes', namesOrNone(data.written)],
        ['Actions', namesOrNone(data.actions)],
      ],
    ],
    [
      'Exports and dependencies',
      [
        ['Exports', namesOrNone(card.exports)],
        ['Models', namesOrNone(dep.models)],
        ['Datasets', namesOrNone(dep.datasets)],
        ['Streams', namesOrNone(dep.streams)],
        ['Cameras', namesOrNone(dep.cameras)],
        ['CDN hosts', namesOrNone(dep.cdn)],
      ],
    ],
    [
      'Access and use',
      [
        ['Access', `${escapeHtml(ACCESS_WORDS[card.access.scope])}; ${escapeHtml(LINK_WORDS[card.access.publicLink])}`],
        ['Last 7 days', `${card.use7d.opens} opens by ${card.use7d.visitors} ${card.use7d.visitors === 1 ? 'person' : 'people'}`],
        ...(card.spend ? [[`Spend ${escapeHtml(card.spend.month)}`, dollars(card.spend.totalMicroUsd)] as [string, string]] : []),
      ],
    ],
  ];
  const parts = [`<h1>${name(app.title)} <small>card</small></h1>`];
  if (app.summary) parts.push(`<p class="lead">${name(app.summary)}</p>`);
  parts.push(`<p><code>${escapeHtml(`${app.namespace}/${app.slug}`)}</code> · ${escapeHtml(app.category)}</p>`);
  for (const [heading, facts] of sections) parts.push(`<h2>${heading}</h2>`, factList(facts));
  parts.push(
    '<h2>Pages</h2>',
    `<ul>${[
      link(links.about, 'About page'),
      link(links.test, 'Open the test version'),
      link(links.log, 'App log'),
      link(links.json, 'This card as JSON (API, with a key)'),
    ]
      .map((l) => `<li>${l}</li>`)
      .join('')}</ul>`,
  );
  return platformPage(baseUrl, `${app.title} card`, account, parts.join('\n'));
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
