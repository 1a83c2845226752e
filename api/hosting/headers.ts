import type { Context } from 'koa';
import type { PublicAddresses } from '../../domain/deps.ts';
import { SDK_BASE_PATH } from '../../schemas/bundle/index.ts';
import type { Manifest } from '../../schemas/manifest/index.ts';

/**
 * The world-model asset host a registered `modeling` SDK adds to the policy (spec: "widens the
 * content security policy for a third-party world-model asset host and WebAssembly compilation").
 * The spec does not name the host; this is the one the modeling SDK loads from.
 */
export const MODELING_ASSET_ORIGIN = 'https://assets.world-model.svc.dev';

/**
 * Where the app's own files of one version live: `<address>/_v/<digest16>/`, and for a page with a
 * ticket `<address>/_v/<digest16>-<secret>/`, the only address its ticket cookie admits (pages.ts).
 */
export const versionPath = (address: string, digest16: string, secret?: string) =>
  `${address}/_v/${digest16}${secret ? `-${secret}` : ''}/`;

/**
 * The isolation every response of an app carries. `sandbox` without allow-same-origin gives the
 * page an opaque origin: it cannot read the service's cookies or call the API as the visitor
 * (only with its ticket); scripts only from its own version (`own`, the `versionPath` the page
 * uses), the platform SDK and the CDNs its manifest lists (no inline script: the ticket and base
 * are injected as elements, not code).
 */
export function appContentPolicy(addresses: PublicAddresses, address: string, own: string, manifest: Manifest): string {
  const sdk = `${addresses.baseUrl}${SDK_BASE_PATH}`;
  const modeling = manifest.sdk.includes('modeling');
  const cdn = manifest.cdn.map((host) => `https://${host}/`);
  // The API, and the public app links (read without login: an internet-tier page has no ticket).
  const services = [`${addresses.baseUrl}/api/`, `${addresses.baseUrl}/semantic/`];
  const directives = [
    'sandbox allow-scripts allow-forms allow-popups allow-downloads',
    "default-src 'none'",
    ['script-src', own, sdk, ...cdn, ...(modeling ? ["'wasm-unsafe-eval'"] : [])].join(' '),
    `style-src ${own} ${sdk} 'unsafe-inline'`,
    ['img-src', own, 'data:', 'blob:', ...(modeling ? [MODELING_ASSET_ORIGIN] : [])].join(' '),
    `font-src ${own} data:`,
    `media-src ${own} blob:`,
    ['connect-src', ...services, own, ...(modeling ? [MODELING_ASSET_ORIGIN] : [])].join(' '),
    `base-uri ${own}`,
    `form-action ${address}/`,
    "frame-ancestors 'none'",
  ];
  return directives.join('; ');
}

/** Camera and microphone only when the manifest asks; other powerful features never. */
export function permissionsPolicy(manifest: Manifest): string {
  const allow = (on: boolean) => (on ? '(self)' : '()');
  return [
    `camera=${allow(manifest.permissions.camera)}`,
    `microphone=${allow(manifest.permissions.microphone)}`,
    'geolocation=()',
    'payment=()',
    'usb=()',
    'display-capture=()',
  ].join(', ');
}

/**
 * Headers of app content. CORP: documents are same-origin; a version's files must be
 * cross-origin, because the page that loads them has an opaque origin, which no same-origin or
 * same-site resource policy admits.
 */
export function setAppHeaders(ctx: Context, policy: { csp: string; permissions: string; asset: boolean }): void {
  ctx.set('Content-Security-Policy', policy.csp);
  ctx.set('Permissions-Policy', policy.permissions);
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Cross-Origin-Resource-Policy', policy.asset ? 'cross-origin' : 'same-origin');
}

/** The platform's own pages in the trees (catalogs, about, 403, 404): no script at all, and sandboxed too. */
export function setPlatformPageHeaders(ctx: Context, addresses: PublicAddresses): void {
  ctx.set(
    'Content-Security-Policy',
    `sandbox; default-src 'none'; style-src ${addresses.baseUrl}/web/assets/; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`,
  );
  ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
}
