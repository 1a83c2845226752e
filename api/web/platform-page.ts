import type { Context } from 'koa';
import type { PublicAddresses } from '../../domain/deps.ts';
import type { Principal } from '../../domain/principal.ts';
import { setPlatformPageHeaders } from '../hosting/headers.ts';

// The server-rendered platform pages (landing, catalogs, about, messages): no script, the sign-in
// pages' stylesheet, and who is signed in at the top of each. Everything from outside (names,
// titles, usernames) is escaped, and shown in <bdi>, so that a right-to-left override in a name
// reorders only the name, never the text around it.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** Text from outside, isolated from its neighbours' direction. */
export const name = (text: string) => `<bdi>${escapeHtml(text)}</bdi>`;

/** Bidi controls, which a <title> cannot isolate (it holds text only). */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export const link = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;

/** Who the page is for: a signed-in account (with a sign-out for a web session), or nobody. */
export type PageAccount = { username: string; signOut: string | null } | { signIn: string };

/**
 * The account bar of a page at `here` (a path of {base_url}, where sign-in comes back to; pages on
 * an app host come back to the landing page). Keys sign out in the terminal, not here.
 */
export function pageAccount(principal: Principal | undefined, baseUrl: string, here = '/'): PageAccount {
  if (!principal) return { signIn: `${baseUrl}/signin?next=${encodeURIComponent(here)}` };
  return { username: principal.account.username, signOut: principal.kind === 'session' ? `${baseUrl}/signout` : null };
}

function accountBar(account: PageAccount): string {
  if ('signIn' in account) return `<p class="who">${link(account.signIn, 'Sign in')}</p>`;
  const signOut = account.signOut ? ` · ${link(account.signOut, 'Sign out')}` : '';
  return `<p class="who">Signed in as <strong>${name(account.username)}</strong>${signOut}</p>`;
}

export function platformPage(baseUrl: string, title: string, account: PageAccount, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title.replace(BIDI_CONTROLS, ''))} · svc</title>
<link rel="stylesheet" href="${escapeHtml(baseUrl)}/web/assets/web.css">
</head>
<body>
<header class="bar"><a class="home" href="${escapeHtml(baseUrl)}/">svc</a> ${accountBar(account)}</header>
<main>
${body}
</main></body>
</html>`;
}

export function messagePage(
  baseUrl: string,
  account: PageAccount,
  heading: string,
  lines: readonly string[],
  links: readonly { href: string; text: string }[] = [],
): string {
  const body = [
    `<h1>${escapeHtml(heading)}</h1>`,
    ...lines.map((l) => `<p>${escapeHtml(l)}</p>`),
    ...links.map((l) => `<p>${link(l.href, l.text)}</p>`),
  ];
  return platformPage(baseUrl, heading, account, body.join('\n'));
}

/** A platform page with its headers; it names the visitor, so a cache keeps it per credential. */
export function sendPlatformPage(ctx: Context, addresses: PublicAddresses, status: number, html: string): void {
  setPlatformPageHeaders(ctx, addresses);
  ctx.set('Vary', 'Authorization, Cookie');
  ctx.status = status;
  ctx.body = html;
  ctx.set('Content-Type', 'text/html; charset=utf-8');
}
