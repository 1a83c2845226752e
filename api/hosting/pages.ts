import type { Context, Middleware, Next } from 'koa';
import { describeCardPage } from '../../domain/app-surface/index.ts';
import {
  accessToApp,
  anonymousAccessToApp,
  cardAddress,
  findHostedApp,
  findServedVersion,
  pageAddresses,
} from '../../domain/apps/index.ts';
import { visitorOf } from '../../domain/companies/index.ts';
import { DomainError } from '../../domain/errors.ts';
import { overlayFor, renderOverlay } from '../../domain/evolve/index.ts';
import {
  aboutMarkdown,
  admitTicketCookie,
  blobBytes,
  type ContentEncoding,
  compressedVariant,
  describeAppPages,
  filesSecretOf,
  listCatalog,
  listSharedApps,
  type OpeningPrincipal,
  openApp,
  openAppAnonymously,
} from '../../domain/hosting/index.ts';
import { authenticateKey, oneRequestOf } from '../../domain/keys/index.ts';
import { type AppAccess, can, isDeveloperOf, isMemberOf, PUBLIC_NAMESPACE } from '../../domain/policy/index.ts';
import { randomBase62 } from '../../domain/security/index.ts';
import { findSession, issueHandoffCode, redeemHandoffCode } from '../../domain/sessions/index.ts';
import { findLinkByToken } from '../../domain/sharing/index.ts';
import { ERRORS } from '../../schemas/errors.ts';
import { clientIp } from '../auth/client-ip.ts';
import { readCookie, readSessionCookie } from '../auth/session-cookie.ts';
import type { ApiDeps } from '../deps.ts';
import { setRetryAfter } from '../http/error-middleware.ts';
import { messagePage, type PageAccount, pageAccount, sendPlatformPage } from '../web/platform-page.ts';
import {
  appAddressBase,
  appHostCookie,
  appHostCookieName,
  appHostOf,
  HANDOFF_REDEEM_PATH,
  HANDOFF_START_PATH,
  isSafePath,
  STATE_PATTERN,
} from './handoff.ts';
import { appContentPolicy, permissionsPolicy, setAppHeaders, setPlatformPageHeaders, versionPath } from './headers.ts';
import { aboutPage, cardPage, catalogPage, injectIntoEntry } from './html.ts';
import { pageBases } from './page-bases.ts';
import { matchTree, type TreePlace, type TreeRequest } from './tree.ts';

// The page trees under {production_base} and {developer_base} (spec Rules for B3): catalogs, app
// entry pages, the versions' files and the generated pages. HTML, not API operations: failures
// are pages, and they are not in the OpenAPI document.

/**
 * Carries the app ticket to the version's files. The page has an opaque origin (CSP sandbox), so
 * every request it makes is cross-site: a Lax or Strict (or Partitioned) cookie never reaches the
 * files, and a same-site or same-origin resource policy blocks them (checked in Chromium, issue
 * 27). Hence SameSite=None and CORP cross-origin on files. Another site can make the browser send
 * the cookie, but only to an address it can name: the cookie admits files only at the page's own
 * `_v/<digest16>-<secret>/` (the secret derives from the ticket, `filesSecretOf`), and its Path is
 * that address, so each open page keeps a cookie of its own. No Max-Age: the page renews its
 * ticket for as long as it stays open, and the server decides what the cookie still admits.
 */
const TICKET_COOKIE = 'svc_app_ticket';
/**
 * Official apps' files: the same for every visitor. A version goes offline when its channel moves
 * on: a shared cache revalidates after a minute (then gets the 404), while a browser keeps for good
 * what it loaded, immutable content its visitor was admitted to.
 */
const IMMUTABLE = 'public, max-age=31536000, s-maxage=60, immutable';
/** Company apps' files are access-controlled: browsers may keep them, shared caches never. */
const PRIVATE_IMMUTABLE = 'private, max-age=31536000, immutable';
/**
 * What an anonymous visitor of an internet-tier app reads: the same for everyone, so shared
 * caches may keep it, but revalidated on every use (the ETag makes that a 304), since lowering
 * the tier must refuse the next request at once.
 */
const PUBLIC_REVALIDATED = 'public, no-cache';
/** A version's segment under `_v/`: its digest16, and on a ticketed page the cookie's secret. */
const VERSION_SEGMENT = /^([0-9a-f]{16})(?:-([0-9a-f]{16}))?$/;
/** Long enough to sign in on {base_url} between leaving the app host and coming back. */
const HANDOFF_STATE_TTL_SECONDS = 15 * 60;

type AppPlace = Extract<TreePlace, { kind: 'app' }>;

export function hostingPages(deps: ApiDeps): Middleware {
  // API calls skip the page trees' matching (every API request passes here first), and the
  // asynchronous frame of a page's answer: one promise less on every call.
  return (ctx, next) => (ctx.path.startsWith('/api/') && pageBases(deps.addresses()).apiOutsideTrees ? next() : page(ctx, next, deps));
}

/** A request the page trees answer (a hand-off page, an app's page and its files), else the next middleware's. */
async function page(ctx: Context, next: Next, deps: ApiDeps): Promise<void> {
  const handoff = handoffPage(ctx, deps);
  const req = handoff ? undefined : matchTree(ctx, deps.addresses());
  if (!handoff && !req) return next();
  // The hand-off pages mint and redeem codes, so not even a HEAD.
  const methods = handoff ? ['GET'] : ['GET', 'HEAD'];
  if (!methods.includes(ctx.method)) {
    ctx.set('Allow', methods.join(', '));
    return sendMessage(ctx, deps, 405, 'Method not allowed', ['Pages are read with GET.']);
  }
  try {
    // One round trip on the principal cache's listener for the page, however many entries it reads.
    await (handoff ? handoff() : serve(ctx, { ...deps, principals: oneRequestOf(deps.principals) }, req!));
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    setRetryAfter(ctx, err);
    await sendMessage(ctx, deps, ERRORS[err.code].status, ERRORS[err.code].status === 404 ? 'Not found' : 'Cannot open this page', [
      err.message,
    ]);
  }
}

/** The hand-off page the request is for: the redeeming one on an app host, the starting one on {base_url}. */
function handoffPage(ctx: Context, deps: ApiDeps): (() => Promise<void>) | undefined {
  const appHost = appHostOf(ctx, deps.addresses());
  if (appHost) return ctx.path === HANDOFF_REDEEM_PATH ? () => redeemHandoff(ctx, deps, appHost) : undefined;
  return ctx.path === HANDOFF_START_PATH ? () => startHandoff(ctx, deps) : undefined;
}

async function serve(ctx: Context, deps: ApiDeps, req: TreeRequest): Promise<void> {
  const { place } = req;
  if (place.kind === 'unknown') return notFound(ctx, deps);
  if (place.kind === 'root') return serveRoot(ctx, deps, req);
  if (place.kind === 'catalog') return serveCatalog(ctx, deps, req, place.namespace);
  if (place.kind === 'link') return serveLink(ctx, deps, req, place.token);
  const [first, ...rest] = place.tail;
  if (first === undefined) return serveEntry(ctx, deps, req, place);
  if (place.tail.length === 1 && (first === 'about' || first === 'about.md')) return serveAbout(ctx, deps, req, place, first);
  if (place.tail.length === 1 && first === 'card' && req.channel === 'test') return serveCard(ctx, deps, place);
  if (first === 'skills' && rest.length === 2 && rest[1] === 'SKILL.md') return serveSkill(ctx, deps, req, place, rest[0]!);
  const segment = first === '_v' && rest.length >= 2 ? VERSION_SEGMENT.exec(rest[0]!) : null;
  if (segment) return serveAsset(ctx, deps, req, place, { digest16: segment[1]!, secret: segment[2] }, rest.slice(1).join('/'));
  return notFound(ctx, deps);
}

/**
 * Bearer key or web session (on an app host, its own handed-off one); undefined when the request
 * carries neither. A bad key is a 401. Looked up once per request: the page's account bar asks too.
 */
function pagePrincipal(ctx: Context, deps: ApiDeps): Promise<OpeningPrincipal | undefined> {
  const state = ctx.state as { pagePrincipal?: Promise<OpeningPrincipal | undefined> };
  state.pagePrincipal ??= findPagePrincipal(ctx, deps);
  return state.pagePrincipal;
}

async function findPagePrincipal(ctx: Context, deps: ApiDeps): Promise<OpeningPrincipal | undefined> {
  const header = ctx.get('authorization');
  if (header) {
    const key = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!key) throw new DomainError('unauthorized', 'Use Authorization: Bearer svc-dk-<key>.');
    return authenticateKey(deps, key);
  }
  const appHost = appHostOf(ctx, deps.addresses());
  if (appHost) {
    const token = readCookie(ctx, appHostCookieName(appHost, 'svc_app_session'));
    return token ? findSession(deps, token, appHost.host) : undefined;
  }
  const token = readSessionCookie(ctx, deps.addresses().baseUrl);
  return token ? findSession(deps, token) : undefined;
}

/**
 * To the sign-in page, which comes back to this address afterwards. An app host cannot see the
 * {base_url} session: the browser goes through the hand-off, carrying a state that this host
 * keeps in a cookie, so a code only signs in the browser that asked for it (no login CSRF).
 */
function redirectToSignIn(ctx: Context, deps: ApiDeps): void {
  const addresses = deps.addresses();
  const appHost = appHostOf(ctx, addresses);
  if (!appHost) {
    ctx.redirect(`${addresses.baseUrl}/signin?next=${encodeURIComponent(ctx.url)}`);
    return;
  }
  const stateName = appHostCookieName(appHost, 'svc_handoff_state');
  // Reused while it lives, so that two tabs signing in at once do not undo each other.
  const current = readCookie(ctx, stateName);
  const state = current && STATE_PATTERN.test(current) ? current : randomBase62(24);
  ctx.append('Set-Cookie', appHostCookie(appHost, stateName, state, HANDOFF_STATE_TTL_SECONDS));
  const to = `${appHost.protocol}//${appHost.host}${ctx.url}`;
  ctx.redirect(`${addresses.baseUrl}${HANDOFF_START_PATH}?to=${encodeURIComponent(to)}&state=${state}`);
}

/**
 * On {base_url}: a one-time code for the visitor's session, sent to the app host that holds `to`
 * (never an address outside the configured bases). Without a session, sign-in comes first.
 */
async function startHandoff(ctx: Context, deps: ApiDeps): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  const { to, state } = ctx.query;
  const base = typeof to === 'string' ? appAddressBase(deps.addresses(), to) : undefined;
  if (!base || typeof state !== 'string' || !STATE_PATTERN.test(state)) {
    return sendMessage(ctx, deps, 400, 'Cannot sign in to this address', ['It is not an app address of this service.']);
  }
  const { baseUrl } = deps.addresses();
  const token = readSessionCookie(ctx, baseUrl);
  const principal = token ? await findSession(deps, token) : undefined;
  if (principal?.kind !== 'session') return ctx.redirect(`${baseUrl}/signin?next=${encodeURIComponent(ctx.url)}`);
  const code = await issueHandoffCode(deps.db, deps.clock, principal.sessionHash, base.host, state);
  const target = new URL(to as string);
  const next = encodeURIComponent(target.pathname + target.search);
  ctx.redirect(`${base.protocol}//${base.host}${HANDOFF_REDEEM_PATH}?code=${code}&next=${next}`);
}

/** On an app host: the code for a session of this host, then on to `next` (a path on this host). */
async function redeemHandoff(ctx: Context, deps: ApiDeps, appHost: URL): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  const { code, next } = ctx.query;
  if (typeof code !== 'string' || typeof next !== 'string' || !isSafePath(next)) {
    return sendMessage(ctx, deps, 400, 'Cannot sign in', ['This sign-in link is not complete.']);
  }
  const stateName = appHostCookieName(appHost, 'svc_handoff_state');
  const state = readCookie(ctx, stateName) ?? '';
  const session = await redeemHandoffCode(deps.db, deps.clock, code, appHost.host, state);
  if (!session) {
    return sendMessage(
      ctx,
      deps,
      400,
      'Cannot sign in',
      ['This sign-in link was used, has expired or was opened in another browser.'],
      [{ href: next, text: 'Try again' }],
    );
  }
  const maxAge = Math.max(0, Math.floor((session.expiresAt.getTime() - deps.clock.now().getTime()) / 1000));
  ctx.append('Set-Cookie', appHostCookie(appHost, appHostCookieName(appHost, 'svc_app_session'), session.token, maxAge));
  ctx.append('Set-Cookie', appHostCookie(appHost, stateName, '', 0));
  ctx.redirect(next);
}

function sendHtml(ctx: Context, status: number, html: string): void {
  ctx.status = status;
  ctx.body = html;
  ctx.set('Content-Type', 'text/html; charset=utf-8');
}

/**
 * The request's principal where a page only shows who it is for (the account bar, "Shared with
 * you"): nobody when its credential is bad, which such a page does not refuse.
 */
function shownPrincipal(ctx: Context, deps: ApiDeps): Promise<OpeningPrincipal | undefined> {
  return pagePrincipal(ctx, deps).catch((err: unknown) => {
    if (err instanceof DomainError) return undefined;
    throw err;
  });
}

/** Who the page shows as signed in. Sign-in comes back to a page of {base_url}; from an app host, to the landing page. */
async function accountOf(ctx: Context, deps: ApiDeps): Promise<PageAccount> {
  const addresses = deps.addresses();
  return pageAccount(await shownPrincipal(ctx, deps), addresses.baseUrl, appHostOf(ctx, addresses) ? '/' : ctx.url);
}

async function sendMessage(
  ctx: Context,
  deps: ApiDeps,
  status: number,
  heading: string,
  lines: string[],
  links: { href: string; text: string }[] = [],
): Promise<void> {
  const account = await accountOf(ctx, deps);
  sendPlatformPage(ctx, deps.addresses(), status, messagePage(deps.addresses().baseUrl, account, heading, lines, links));
}

/**
 * The 403 of an app page, saying what the visitor already has: the address of the production
 * version when the policy admits them there (a share holder on a test address).
 */
function refuseApp(
  ctx: Context,
  deps: ApiDeps,
  access: Extract<AppAccess, { allowed: false }>,
  production: string,
  heading = 'You cannot open this app',
): Promise<void> {
  const links = access.productionOpen ? [{ href: production, text: production }] : [];
  return sendMessage(ctx, deps, 403, heading, [access.message, access.remedy], links);
}

/**
 * A plain 404: never another app's file, never a platform page. Not kept by any cache: the address
 * may serve something after the next channel move (a rollback brings a version back online).
 */
function notFound(ctx: Context, deps: ApiDeps): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  return sendMessage(ctx, deps, 404, 'Not found', ['There is no page at this address.']);
}

async function serveRoot(ctx: Context, deps: ApiDeps, req: TreeRequest): Promise<void> {
  const principal = await pagePrincipal(ctx, deps);
  if (!principal) return redirectToSignIn(ctx, deps);
  const { licenses } = await visitorOf(deps.db, principal, deps.clock.now());
  // The company's catalog; accounts in no company go to the official one.
  ctx.redirect(licenses[0] ? `${req.base}/${licenses[0].cellId}/apps` : `${req.base}/apps`);
}

async function serveCatalog(ctx: Context, deps: ApiDeps, req: TreeRequest, namespace: string): Promise<void> {
  const addresses = deps.addresses();
  if (namespace !== 'public') {
    const principal = await pagePrincipal(ctx, deps);
    if (!principal) return redirectToSignIn(ctx, deps);
    if (!isMemberOf(principal, namespace)) {
      return sendMessage(
        ctx,
        deps,
        403,
        'Not your company',
        [`The ${namespace} catalog is for members of that company.`, 'Ask an admin of that company for a license.'],
        [{ href: `${addresses.baseUrl}/`, text: 'Your catalogs' }],
      );
    }
    if (req.channel === 'test' && !isDeveloperOf(principal, namespace))
      return ctx.redirect(`${addresses.productionBase}/${namespace}/apps`);
  }
  const { company, entries } = await listCatalog(deps.db, addresses, namespace, req.channel);
  // Shares open production only.
  const principal = req.channel === 'production' ? await shownPrincipal(ctx, deps) : undefined;
  const shared = principal ? await listSharedApps(deps, principal) : [];
  ctx.set('Cache-Control', 'private, no-cache');
  const html = catalogPage(addresses.baseUrl, await accountOf(ctx, deps), { company, channel: req.channel }, entries, shared);
  sendPlatformPage(ctx, addresses, 200, html);
}

/**
 * A public link (spec C): login first, then the app's production version opens here with the role
 * the link gives (company people keep their company role, others read-only as viewer; refused to
 * outsiders when the app's `auth.publicLink` is `members`). A revoked or unknown link is a 404.
 */
async function serveLink(ctx: Context, deps: ApiDeps, req: TreeRequest, token: string): Promise<void> {
  const principal = await pagePrincipal(ctx, deps);
  if (!principal) return redirectToSignIn(ctx, deps);
  // The link's address carries its token: never leak it in a Referer.
  ctx.set('Referrer-Policy', 'no-referrer');
  const link = await findLinkByToken(deps.db, token, deps.clock.now());
  if (!link) return sendMessage(ctx, deps, 404, 'This link does not open anything', ['It was revoked, or it never existed.']);
  const address = pageAddresses(deps.addresses(), link.namespace, link.slug, []).production.address;
  const place: AppPlace = { kind: 'app', namespace: link.namespace, slug: link.slug, address, tail: [] };
  return serveEntry(ctx, deps, req, place, link.id);
}

async function serveEntry(
  ctx: Context,
  deps: ApiDeps,
  req: TreeRequest,
  place: AppPlace,
  linkShareId: string | null = null,
): Promise<void> {
  const principal = await pagePrincipal(ctx, deps);
  if (!principal) return serveEntryAnonymously(ctx, deps, req, place);
  const target = { namespace: place.namespace, slug: place.slug, channel: req.channel };
  // A HEAD opens nothing: the same answer without a ticket, a usage/open record or a body.
  const result =
    ctx.method === 'HEAD'
      ? { opened: false as const, ...(await accessToApp(deps, principal, target, linkShareId)) }
      : await openApp(deps, principal, target, linkShareId);
  const addresses = deps.addresses();
  if (!result.access.allowed) {
    const { production } = pageAddresses(addresses, place.namespace, place.slug, []);
    if (result.access.productionInstead) return ctx.redirect(production.address);
    return refuseApp(ctx, deps, result.access, production.address);
  }
  const { version } = result;
  const ticket = result.opened ? result.ticket : undefined;
  const base = versionPath(place.address, version.digest16, ticket && filesSecretOf(ticket.ticket));
  setAppHeaders(ctx, {
    csp: appContentPolicy(addresses, place.address, base, version.manifest),
    permissions: permissionsPolicy(version.manifest),
    asset: false,
  });
  // The entry page always shows the channel's current version and carries a personal ticket.
  ctx.set('Cache-Control', 'no-store');
  if (!result.opened || !ticket) {
    ctx.status = 200;
    ctx.set('Content-Type', 'text/html; charset=utf-8');
    return;
  }
  ctx.append('Set-Cookie', `${TICKET_COOKIE}=${ticket.ticket}; Path=${new URL(base).pathname}; HttpOnly; Secure; SameSite=None`);
  const app = { namespace: result.app.namespace, slug: result.app.slug };
  const overlay = await overlayFor(deps, result.app, version, principal.account.id);
  const page = renderOverlay(result.entry.toString('utf8'), overlay, version.manifest);
  sendHtml(ctx, 200, injectIntoEntry(page, base, app, ticket));
}

/**
 * No credential: an app at the internet tier opens read-only (the policy's anonymous rule), its
 * page without a ticket; any other app asks for sign-in as before.
 */
async function serveEntryAnonymously(ctx: Context, deps: ApiDeps, req: TreeRequest, place: AppPlace): Promise<void> {
  const target = { namespace: place.namespace, slug: place.slug, channel: req.channel };
  // A HEAD opens nothing: the same answer without a usage/open record or a body.
  const { app, version, access, entry } =
    ctx.method === 'HEAD'
      ? { ...(await anonymousAccessToApp(deps, target)), entry: null }
      : await openAppAnonymously(deps, target, clientIp(ctx, deps.http.trustedProxies));
  if (!access.allowed) return redirectToSignIn(ctx, deps);
  const base = versionPath(place.address, version.digest16);
  setAppHeaders(ctx, {
    csp: appContentPolicy(deps.addresses(), place.address, base, version.manifest),
    permissions: permissionsPolicy(version.manifest),
    asset: false,
  });
  ctx.set('Cache-Control', PUBLIC_REVALIDATED);
  // Signed-in visitors get a page of their own at the same address.
  ctx.set('Vary', 'Authorization, Cookie');
  if (!entry) {
    ctx.status = 200;
    ctx.set('Content-Type', 'text/html; charset=utf-8');
    return;
  }
  const ref = { namespace: app.namespace, slug: app.slug };
  // Anonymous visitors see the company-wide improvements.
  const overlay = await overlayFor(deps, app, version, null);
  sendHtml(ctx, 200, injectIntoEntry(renderOverlay(entry.toString('utf8'), overlay, version.manifest), base, ref));
}

/**
 * The generated pages of the production channel are public (spec); those of the test channel show
 * unreleased content, so they are for the people who may open the test channel (the company's
 * developers; for official apps, any developer or staff). Answers whether the page may be sent;
 * otherwise the answer (sign-in, or 403) is already made.
 */
async function mayReadGeneratedPage(ctx: Context, deps: ApiDeps, req: TreeRequest, place: AppPlace): Promise<boolean> {
  if (req.channel === 'production') return true;
  const principal = await pagePrincipal(ctx, deps);
  if (!principal) {
    redirectToSignIn(ctx, deps);
    return false;
  }
  const { access } = await accessToApp(deps, principal, { namespace: place.namespace, slug: place.slug, channel: req.channel });
  if (access.allowed) return true;
  const { production } = pageAddresses(deps.addresses(), place.namespace, place.slug, []);
  await refuseApp(ctx, deps, access, production.about, 'You cannot read this page');
  return false;
}

/** Test-channel pages depend on who asks: never in a shared cache. */
const generatedPageCaching = (req: TreeRequest) => (req.channel === 'test' ? 'private, no-cache' : 'no-cache');

async function serveAbout(ctx: Context, deps: ApiDeps, req: TreeRequest, place: AppPlace, page: 'about' | 'about.md'): Promise<void> {
  if (!(await mayReadGeneratedPage(ctx, deps, req, place))) return;
  const pages = await describeAppPages(deps, { namespace: place.namespace, slug: place.slug, channel: req.channel });
  if (page === 'about') {
    // It names the visitor: for their browser only.
    ctx.set('Cache-Control', 'private, no-cache');
    // The card link only for those the card page admits (the policy decides there too).
    const principal = await shownPrincipal(ctx, deps);
    const card = principal && can(principal, 'app.read-card', { namespace: place.namespace });
    const html = aboutPage(
      deps.addresses().baseUrl,
      await accountOf(ctx, deps),
      pages,
      card ? cardAddress(deps.addresses(), place.namespace, place.slug) : undefined,
    );
    return sendPlatformPage(ctx, deps.addresses(), 200, html);
  }
  setPlatformPageHeaders(ctx, deps.addresses());
  ctx.set('Cache-Control', generatedPageCaching(req));
  ctx.body = aboutMarkdown(pages);
  ctx.set('Content-Type', 'text/markdown; charset=utf-8');
}

/**
 * The app card page (`{developer_base}/…/apps/<slug>/card`): the company's developers, by key or
 * web session (app.read-card); a refusal is the platform's 403 page, before anything of the card.
 */
async function serveCard(ctx: Context, deps: ApiDeps, place: AppPlace): Promise<void> {
  const principal = await pagePrincipal(ctx, deps);
  if (!principal) return redirectToSignIn(ctx, deps);
  const addresses = deps.addresses();
  const card = await describeCardPage(deps, principal, { namespace: place.namespace, slug: place.slug });
  const { test, production } = pageAddresses(addresses, place.namespace, place.slug, []);
  const query = new URLSearchParams({ namespace: place.namespace, slug: place.slug });
  const links = {
    about: card.version.production ? production.about : test.about,
    test: test.address,
    log: `${addresses.baseUrl}/web/log?${query}`,
    json: `${addresses.baseUrl}/api/v1/developer/apps/${place.namespace}/${place.slug}/card`,
  };
  // It holds the company's spend: for this browser only.
  ctx.set('Cache-Control', 'private, no-store');
  sendPlatformPage(ctx, addresses, 200, cardPage(addresses.baseUrl, await accountOf(ctx, deps), card, links));
}

async function serveSkill(ctx: Context, deps: ApiDeps, req: TreeRequest, place: AppPlace, name: string): Promise<void> {
  if (!(await mayReadGeneratedPage(ctx, deps, req, place))) return;
  const pages = await describeAppPages(deps, { namespace: place.namespace, slug: place.slug, channel: req.channel });
  const skill = pages.skills.find((s) => s.name === name);
  if (!skill) return notFound(ctx, deps);
  setPlatformPageHeaders(ctx, deps.addresses());
  ctx.set('Cache-Control', generatedPageCaching(req));
  ctx.body = skill.content;
  ctx.set('Content-Type', 'text/markdown; charset=utf-8');
}

/**
 * Whether the request may read the app's files: the ticket cookie (only at the address with its
 * secret), else a key or a session with access today, else (no credential) the app at the
 * internet tier, read by anyone.
 */
async function assetAccess(ctx: Context, deps: ApiDeps, appId: string, req: TreeRequest, place: AppPlace, secret: string | undefined) {
  const ticket = ctx.cookies.get(TICKET_COOKIE);
  const cookieApplies = ticket && secret && !ctx.get('authorization');
  if (cookieApplies && (await admitTicketCookie(deps, ticket, secret, appId, req.channel))) return 'admitted';
  const principal = await pagePrincipal(ctx, deps);
  if (!principal) {
    const { access } = await anonymousAccessToApp(deps, { namespace: place.namespace, slug: place.slug, channel: req.channel });
    return access.allowed ? 'internet' : 'sign_in';
  }
  const { access } = await accessToApp(deps, principal, { namespace: place.namespace, slug: place.slug, channel: req.channel });
  return access.allowed ? 'admitted' : access;
}

async function serveAsset(
  ctx: Context,
  deps: ApiDeps,
  req: TreeRequest,
  place: AppPlace,
  segment: { digest16: string; secret: string | undefined },
  path: string,
): Promise<void> {
  const app = await findHostedApp(deps.db, place.namespace, place.slug);
  const version = app && (await findServedVersion(deps, app.id, req.channel, segment.digest16));
  const file = version?.files.get(path);
  if (!app || !version || !file) return notFound(ctx, deps);
  const access = await assetAccess(ctx, deps, app.id, req, place, segment.secret);
  if (access === 'sign_in') return redirectToSignIn(ctx, deps);
  if (access !== 'admitted' && access !== 'internet') {
    return refuseApp(ctx, deps, access, pageAddresses(deps.addresses(), place.namespace, place.slug, []).production.address);
  }

  setAppHeaders(ctx, {
    csp: appContentPolicy(deps.addresses(), place.address, versionPath(place.address, version.digest16, segment.secret), version.manifest),
    permissions: permissionsPolicy(version.manifest),
    asset: true,
  });
  ctx.set('Cache-Control', app.namespace === PUBLIC_NAMESPACE ? IMMUTABLE : access === 'internet' ? PUBLIC_REVALIDATED : PRIVATE_IMMUTABLE);
  ctx.set('Vary', 'Accept-Encoding');
  const encoding = negotiateEncoding(ctx.get('accept-encoding'));
  const packed = encoding && (await compressedVariant(deps, file, encoding));
  // One strong ETag per representation: the content hash, plus the encoding when compressed.
  const etag = packed ? `"${file.hex}.${encoding}"` : `"${file.hex}"`;
  ctx.set('ETag', etag);
  if (matchesIfNoneMatch(ctx.get('if-none-match'), etag)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.body = packed || (await blobBytes(deps, file.sha256));
  if (packed) ctx.set('Content-Encoding', encoding!);
  ctx.set('Content-Type', file.contentType);
}

/** br when accepted, else gzip, else none (q=0 refuses). */
function negotiateEncoding(header: string): ContentEncoding | undefined {
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((p) => p.trim());
    const q = params.find((p) => p.startsWith('q='));
    weights.set(name.toLowerCase(), q ? Number(q.slice(2)) : 1);
  }
  return (['br', 'gzip'] as const).find((e) => (weights.get(e) ?? 0) > 0);
}

function matchesIfNoneMatch(header: string, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}
