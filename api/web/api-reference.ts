import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type Router from '@koa/router';
import type { Context } from 'koa';

// The API reference page: swagger-ui (the swagger-ui-dist package: no runtime dependencies, nothing
// fetched from elsewhere) renders the service's own OpenAPI document. Its two files are served from
// node_modules under a path that names their version, so they are cached for a year; only those
// two, never a path a request names.

export const API_REFERENCE_PATH = '/docs/api';

const require = createRequire(import.meta.url);
export const SWAGGER_UI_VERSION: string = require('swagger-ui-dist/package.json').version;
export const SWAGGER_UI_ASSETS = `/web/assets/swagger-ui/${SWAGGER_UI_VERSION}/`;

const FILES = new Map([
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui.css', 'text/css; charset=utf-8'],
]);
const YEAR = 365 * 24 * 3600;
// Read on first use: 1.9 MB that most processes never serve.
const loaded = new Map<string, Buffer>();

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · svc</title>
<link rel="stylesheet" href="${SWAGGER_UI_ASSETS}swagger-ui.css">
<link rel="stylesheet" href="/web/assets/reference.css">
<script src="${SWAGGER_UI_ASSETS}swagger-ui-bundle.js" defer></script>
<script src="/web/assets/reference.js" defer></script>
</head>
<body>
<header><p><a href="/">svc</a> · <a href="/api/v1/openapi.json">OpenAPI document (JSON)</a></p></header>
<main id="reference"><h1>svc API reference</h1><p>Loading the OpenAPI document…</p></main>
</body>
</html>`;

// swagger-ui sets style attributes and draws its icons from data: URLs; its script is a file
// (reference.js), so scripts stay 'self' only.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function sendReference(ctx: Context): void {
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', CSP);
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-cache');
  ctx.body = PAGE;
}

function sendSwaggerFile(ctx: Context, name: string): boolean {
  const type = FILES.get(name);
  if (!type) return false;
  let body = loaded.get(name);
  if (!body) {
    body = readFileSync(require.resolve(`swagger-ui-dist/${name}`));
    loaded.set(name, body);
  }
  ctx.type = type;
  ctx.set('Cache-Control', `public, max-age=${YEAR}, immutable`);
  ctx.body = body;
  return true;
}

export function mountApiReference(router: Router): void {
  router.get(API_REFERENCE_PATH, sendReference);
  router.get('/web/assets/swagger-ui/:version/:file', (ctx, next) =>
    ctx.params.version === SWAGGER_UI_VERSION && sendSwaggerFile(ctx, ctx.params.file!) ? undefined : next(),
  );
}
