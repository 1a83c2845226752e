import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import type { Context } from 'koa';
import { SDK_BASE_PATH } from '../../schemas/bundle/index.ts';
import { LEGACY_SDK_NAMES } from '../../schemas/manifest/sdk.ts';
import { sdkWireTypes } from '../../schemas/sdk/wire-types.ts';
import { API_VERSION } from '../http/openapi.ts';

// The browser and Node SDK at {base_url}/developer/sdk/v1/ (spec Versioning 3). Each release is
// also at /developer/sdk/v1/<version>/, immutable and cached for a year; the plain v1 path is the
// alias of the newest release, cached for minutes so a release reaches pages soon.
// Not API operations: files, outside the envelope and the OpenAPI document.

const read = (name: string) => readFileSync(new URL(`../../sdk/v1/${name}`, import.meta.url), 'utf8');

const MODULE = read('semantic.js');
/** The client's declarations after the generated wire types, as one self-contained file. */
const TYPES = `${sdkWireTypes()}\n\n${read('client.d.ts').replace(/^import type [^;]*;\n/m, '')}`;
/** Every legacy SDK name is the semantic SDK (Versioning 6): the same module, re-exported. */
const ALIAS = "export * from './semantic.js';\n";

const JS = 'text/javascript; charset=utf-8';
const FILES = new Map<string, { body: string; type: string }>([
  ['semantic.js', { body: MODULE, type: JS }],
  ['semantic.d.ts', { body: TYPES, type: 'application/typescript; charset=utf-8' }],
  ['ui.css', { body: read('ui.css'), type: 'text/css; charset=utf-8' }],
  ...Object.entries(LEGACY_SDK_NAMES)
    .filter(([, sdk]) => sdk === 'semantic')
    .map(([name]) => [`${name}.js`, { body: ALIAS, type: JS }] as const),
]);

const LATEST_MAX_AGE = 300;
const RELEASE_MAX_AGE = 365 * 24 * 3600;

function send(ctx: Context, name: string, maxAge: number): boolean {
  const file = FILES.get(name);
  if (!file) return false;
  ctx.type = file.type;
  ctx.set('Cache-Control', `public, max-age=${maxAge}${maxAge === RELEASE_MAX_AGE ? ', immutable' : ''}`);
  // App pages have an opaque origin: module scripts are fetched in CORS mode and the files must
  // be loadable cross-origin. They hold no secret.
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
  ctx.body = file.body;
  return true;
}

export function sdkRouter(): Router {
  const router = new Router();
  router.get(`${SDK_BASE_PATH}:file`, (ctx, next) => (send(ctx, ctx.params.file!, LATEST_MAX_AGE) ? undefined : next()));
  router.get(`${SDK_BASE_PATH}:release/:file`, (ctx, next) =>
    ctx.params.release === API_VERSION && send(ctx, ctx.params.file!, RELEASE_MAX_AGE) ? undefined : next(),
  );
  return router;
}
