import type { Context } from 'koa';
import type { Channel } from '../../domain/db/index.ts';
import type { PublicAddresses } from '../../domain/deps.ts';
import { PUBLIC_NAMESPACE } from '../../domain/policy/index.ts';
import { CELL_ID_PATTERN, SLUG_PATTERN } from '../../schemas/manifest/index.ts';
import { pageBases } from './page-bases.ts';

/** Where a request falls in the page trees of {production_base} and {developer_base}. */
export type TreePlace =
  | { kind: 'root' }
  | { kind: 'catalog'; namespace: string }
  | { kind: 'app'; namespace: string; slug: string; address: string; tail: string[] }
  /** A public link `{production_base}/s/<token>` (production only). */
  | { kind: 'link'; token: string }
  | { kind: 'unknown' };

export interface TreeRequest {
  channel: Channel;
  /** The tree's base, as configured (`{production_base}` or `{developer_base}`). */
  base: string;
  place: TreePlace;
}

/**
 * Each base is matched by its path, and also by its host when it is not the service's own: the
 * default bases (`/p`, `/d` under {base_url}) are served on any address the service answers on;
 * a base on a host of its own (a separate domain for app content) only on requests for that host.
 */
export function matchTree(ctx: Context, addresses: PublicAddresses): TreeRequest | undefined {
  const { ownHost, trees } = pageBases(addresses);
  const { path } = ctx;
  for (const { channel, base, url, prefix } of trees) {
    if (url.host !== ownHost && url.host !== ctx.host) continue;
    if (!path.startsWith(prefix) || (path.length > prefix.length && path[prefix.length] !== '/')) continue;
    const segments = path.slice(prefix.length).split('/').slice(1).map(decodeSegment);
    return { channel, base, place: placeOf(base, segments, channel) };
  }
  return undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // Not a path any bundle or page has: it falls through to a 404.
    return '\0';
  }
}

function placeOf(base: string, segments: string[], channel: Channel): TreePlace {
  // `/apps` and `/apps/` are one page, as are an app address with and without the slash.
  const s = segments.at(-1) === '' ? segments.slice(0, -1) : segments;
  if (s.length === 0) return { kind: 'root' };
  if (s[0] === 's' && s.length === 2 && channel === 'production') return { kind: 'link', token: s[1]! };
  const app = (namespace: string, slug: string | undefined, tail: string[], tree: string): TreePlace =>
    slug !== undefined && SLUG_PATTERN.test(slug)
      ? { kind: 'app', namespace, slug, address: `${base}/${tree}/${slug}`, tail }
      : { kind: 'unknown' };
  if (s[0] === 'apps')
    return s.length === 1 ? { kind: 'catalog', namespace: PUBLIC_NAMESPACE } : app(PUBLIC_NAMESPACE, s[1], s.slice(2), 'apps');
  if (CELL_ID_PATTERN.test(s[0]!) && s[1] === 'apps') {
    return s.length === 2 ? { kind: 'catalog', namespace: s[0]! } : app(s[0]!, s[2], s.slice(3), `${s[0]}/apps`);
  }
  return { kind: 'unknown' };
}
