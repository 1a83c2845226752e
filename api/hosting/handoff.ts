import type { Context } from 'koa';
import type { PublicAddresses } from '../../domain/deps.ts';
import { pageBases } from './page-bases.ts';

// Helpers of the sign-in hand-off to app hosts (page bases on a host other than {base_url}'s);
// the pages themselves are served by hosting/pages.ts.

/** The hand-off endpoint on {base_url}, and the redeeming one at the root of each app host. */
export const HANDOFF_START_PATH = '/app-handoff';
export const HANDOFF_REDEEM_PATH = '/_handoff';
/** A hand-off state: 24 random bytes in base62. */
export const STATE_PATTERN = /^[0-9A-Za-z]{33}$/;

/** The app host's base when the request is for one. */
export function appHostOf(ctx: Context, addresses: PublicAddresses): URL | undefined {
  return pageBases(addresses).appHosts.find((u) => u.host === ctx.host);
}

/** The base whose tree holds `address` (an absolute URL), for a hand-off to it; never another site. */
export function appAddressBase(addresses: PublicAddresses, address: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  if (url.username || url.password || !isSafePath(url.pathname + url.search)) return undefined;
  return pageBases(addresses).appHosts.find((b) => {
    const prefix = b.pathname.replace(/\/$/, '');
    return b.origin === url.origin && (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`));
  });
}

/**
 * A path on the same host: starts with one `/` and cannot be read as another host (`//host`,
 * `/\host`), as written or after decoding encoded slashes, backslashes, dots, tabs and newlines;
 * the server-side twin of safeNext in api/web/assets/common.js.
 */
export function isSafePath(path: string): boolean {
  if (!path.startsWith('/')) return false;
  const decoded = path.replace(/%(2e|2f|5c|09|0a|0d)/gi, (encoded) => decodeURIComponent(encoded));
  return [path, decoded].every((candidate) => {
    const plain = candidate.replace(/[\t\n\r]/g, '').replaceAll('\\', '/');
    return !plain.startsWith('//') && !new URL(plain, 'http://host.invalid').pathname.startsWith('//');
  });
}

/** Cookie names on an app host; over https with the __Host- prefix, so no other origin can set or shadow them. */
export function appHostCookieName(base: URL, name: 'svc_app_session' | 'svc_handoff_state'): string {
  return base.protocol === 'https:' ? `__Host-${name}` : name;
}

export function appHostCookie(base: URL, name: string, value: string, maxAgeSeconds: number): string {
  return [
    `${name}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${maxAgeSeconds}`,
    ...(base.protocol === 'https:' ? ['Secure'] : []),
  ].join('; ');
}
