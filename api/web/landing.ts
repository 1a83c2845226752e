import type { Context } from 'koa';
import { listVisitorCatalogs, type VisitorCatalog } from '../../domain/hosting/index.ts';
import { findSession } from '../../domain/sessions/index.ts';
import { SDK_BASE_PATH } from '../../schemas/bundle/index.ts';
import { MANIFEST_SCHEMA_PATH } from '../../schemas/manifest/index.ts';
import { readSessionCookie } from '../auth/session-cookie.ts';
import type { ApiDeps } from '../deps.ts';
import { API_REFERENCE_PATH } from './api-reference.ts';
import { escapeHtml, link, name, pageAccount, platformPage, sendPlatformPage } from './platform-page.ts';

// The service root `/`: what svc is, who is signed in, their catalogs and where the API is described.

/** Public addresses a developer starts from (all readable without sign-in). */
const DOCS = [
  { path: API_REFERENCE_PATH, text: 'API reference' },
  { path: '/api/v1/openapi.json', text: 'API description (OpenAPI 3.1, JSON)' },
  { path: MANIFEST_SCHEMA_PATH, text: 'App manifest (JSON Schema)' },
  { path: `${SDK_BASE_PATH}client.d.ts`, text: 'Browser and Node SDK (TypeScript declarations)' },
];

export async function serveLanding(ctx: Context, deps: ApiDeps): Promise<void> {
  const addresses = deps.addresses();
  const token = readSessionCookie(ctx, addresses.baseUrl);
  const principal = token ? await findSession(deps, token) : undefined;
  const catalogs = principal ? await listVisitorCatalogs(deps.db, addresses, principal) : [];
  const account = pageAccount(principal, addresses.baseUrl);
  const official = `${addresses.productionBase}/apps`;
  const body = [
    '<h1>svc</h1>',
    '<p class="lead">Companies build small single-page apps on svc, test them, publish them and decide who may open them.</p>',
    '<h2>Apps</h2>',
    'signIn' in account
      ? `<p>${link(account.signIn, 'Sign in')} to open your company’s apps.</p>\n<p>${link(official, 'Official apps')}</p>`
      : `<ul class="apps">\n${catalogs.map(catalogItem).join('\n')}\n<li>${link(official, 'Official apps')}</li>\n</ul>` +
        (catalogs.length ? '' : '<p>Your account belongs to no company yet: ask your company admin for a license.</p>'),
    '<h2>For developers</h2>',
    `<ul>\n${DOCS.map((d) => `<li>${link(`${addresses.baseUrl}${d.path}`, d.text)}</li>`).join('\n')}\n</ul>`,
  ];
  ctx.set('Cache-Control', 'private, no-cache');
  sendPlatformPage(ctx, addresses, 200, platformPage(addresses.baseUrl, 'Home', account, body.join('\n')));
}

const catalogItem = (c: VisitorCatalog) =>
  `<li><a href="${escapeHtml(c.production)}">${name(c.company)} apps</a>${c.test ? ` · ${link(c.test, 'test')}` : ''}</li>`;
