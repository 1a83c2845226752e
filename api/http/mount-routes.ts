import Router, { type RouterMiddleware } from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { DbOrTrx } from '../../domain/db/index.ts';
import { DomainError } from '../../domain/errors.ts';
import { oneRequestOf } from '../../domain/keys/index.ts';
import { credentialTypesOf, ROUTE_ACCESS, type RouteAccess } from '../../domain/policy/index.ts';
import { consume, tenantOf } from '../../domain/rate-limit/index.ts';
import { consumeAppRequest } from '../../domain/usage/index.ts';
import { issuesToProblems, problem, reportedProblems } from '../../schemas/problems.ts';
import { authenticate } from '../auth/authenticate.ts';
import { clientIp } from '../auth/client-ip.ts';
import type { ApiDeps } from '../deps.ts';
import { JsonText } from './envelope.ts';
import { setHeader } from './headers.ts';
import { readJsonBody } from './read-json-body.ts';
import { type AnyRoute, bodyLimitOf, routerPath } from './route.ts';
import { assertCleanStrings } from './string-rule.ts';
import { runWrite } from './transaction.ts';

export const DRY_RUN_HEADER = 'x-svc-dry-run';

/** Strict: a typo such as `x-svc-dry-run: yes` must not silently perform the write. */
function readDryRun(ctx: Context): boolean {
  const raw = ctx.get(DRY_RUN_HEADER).trim().toLowerCase();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new DomainError('invalid_payload', `${DRY_RUN_HEADER} must be true or false.`, {
    details: { problems: [problem(`header.${DRY_RUN_HEADER}`, 'invalid_value', 'must be true or false')] },
  });
}

function parseOrThrow<S extends z.ZodType>(schema: S | undefined, value: unknown, code: 'invalid_path' | 'invalid_payload', root = '') {
  if (!schema) return undefined;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new DomainError(code, undefined, { details: reportedProblems(issuesToProblems(parsed.error.issues, root)) });
}

/** Stage order for every route: rate limit → auth → validate → prepare (pool) → handler (transaction for writes). */
function handle(route: AnyRoute, shared: ApiDeps) {
  // Decided by the route and the static route table: made once per route, not on every request.
  const access = route.auth === 'none' ? undefined : routeAccessOf(route);
  const how = { renewal: route.auth === 'renewal', write: route.write === true };
  const crossOrigin = answersCrossOrigin(route);
  const limit = route.rateLimit && { name: `route:${route.operationId}`, max: route.rateLimit.perMinute, windowSeconds: 60 };
  const noEffects = () => {
    throw new Error(`read route ${route.operationId} registered a side effect`);
  };
  return async (ctx: Context) => {
    const deps: ApiDeps = { ...shared, principals: oneRequestOf(shared.principals) };
    ctx.state.route = route.path;
    // Read by the error middleware, which shapes every failure.
    if (route.errorFormat) ctx.state.errorFormat = route.errorFormat;
    if (route.authChallenge) ctx.state.authChallenge = route.authChallenge(ctx, deps);
    if (crossOrigin) allowOrigin(ctx, route, deps);
    const ip = clientIp(ctx, deps.http.trustedProxies);
    if (limit && route.rateLimit?.per !== 'tenant') await consume(deps.db, limit, ip, deps.clock);
    const principal = access === undefined ? null : await authenticate(ctx, deps, access, how);
    if (limit && route.rateLimit?.per === 'tenant' && principal) await consume(deps.db, limit, `${tenantOf(principal)}:${ip}`, deps.clock);
    // Whose share of the process's body buffer a body read here takes (read-json-body.ts).
    ctx.state.bodyBuffer = deps.http.bodyBuffer;
    ctx.state.tenant = principal ? tenantOf(principal) : `ip:${ip}`;
    // The app's requestsPerMinute, per source IP, on every request made with its ticket.
    if (principal?.kind === 'ticket') await consumeAppRequest(deps, principal.ticket.appId, ip);
    if (route.deprecated) {
      // RFC 9745: the Deprecation header is a structured-field date (`@` and Unix seconds); a Link to the successor.
      ctx.set('Deprecation', `@${Math.floor(route.deprecated.since.getTime() / 1000)}`);
      const successor = route.deprecated.successor.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) =>
        encodeURIComponent(ctx.params[name] ?? ''),
      );
      ctx.set('Link', `<${successor}>; rel="successor-version"`);
    }
    // The string rule first, on the raw input of every route, whatever its schemas accept.
    assertCleanStrings(ctx.params, 'path');
    // Koa parses the query string into an object on first read: most calls have none.
    if (ctx.querystring !== '') assertCleanStrings(ctx.query, 'query');
    const rawBody = route.body ? await readJsonBody(ctx, bodyLimitOf(route, deps.http.maxBodyBytes), route.textBody) : undefined;
    assertCleanStrings(rawBody, '');
    const params = parseOrThrow(route.params, ctx.params, 'invalid_path');
    const query = route.query ? parseOrThrow(route.query, { ...ctx.query }, 'invalid_payload', 'query') : undefined;
    const body = route.body ? parseOrThrow(route.body, rawBody, 'invalid_payload') : undefined;
    const dryRun = route.write || route.ownDryRun ? readDryRun(ctx) : false;
    const input = { principal, ip, params, query, body, dryRun, deps, ctx };
    const prepared = route.prepare ? await route.prepare(input) : undefined;

    const run = (db: DbOrTrx, afterCommit: (effect: () => Promise<void>) => void) => route.handler({ ...input, prepared, db, afterCommit });
    const result = route.write
      ? await runWrite(deps.db, dryRun, ({ trx, afterCommit }) => run(trx, afterCommit))
      : route.snapshot
        ? await deps.db
            .transaction()
            .setIsolationLevel('repeatable read')
            .setAccessMode('read only')
            .execute((trx) => run(trx, noEffects))
        : await run(deps.db, noEffects);

    if (result.headers) for (const [name, value] of Object.entries(result.headers)) ctx.set(name, value);
    if (dryRun && !route.ownDryRun) {
      ctx.status = 202;
      sendJson(ctx, { ok: true, data: { dryRun: true, plan: result.plan ?? result.data }, requestId: ctx.state.requestId });
      return;
    }
    ctx.status = result.status ?? route.response.status;
    if (route.envelope === false) ctx.body = result.data;
    else if (result.data instanceof JsonText) {
      setHeader(ctx, 'Content-Type', JSON_TYPE);
      ctx.body = `{"ok":true,"data":${result.data.text},"requestId":${JSON.stringify(ctx.state.requestId)}}`;
    } else sendJson(ctx, { ok: true, data: result.data, requestId: ctx.state.requestId });
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** An envelope as JSON text with its content type given whole: Koa would look the type up by name on every answer. */
function sendJson(ctx: Context, envelope: object): void {
  setHeader(ctx, 'Content-Type', JSON_TYPE);
  ctx.body = JSON.stringify(envelope);
}

const answersCrossOrigin = (route: AnyRoute) =>
  route.cors !== undefined || (route.auth !== 'none' && credentialTypesOf(routeAccessOf(route)).ticket);

/** The route table's entry for a route that reads a credential; a route without one is a programming error, found at mount. */
export function routeAccessOf(route: AnyRoute): RouteAccess {
  const access = ROUTE_ACCESS[route.operationId];
  if (!access) throw new Error(`route ${route.operationId} has no entry in domain/policy/route-access.ts`);
  return access;
}

/**
 * App pages run with an opaque origin (CSP sandbox), so their calls are cross-origin. Routes that
 * take app tickets answer any origin: the credential is a header, never a cookie, so no other
 * site can call them as the visitor. So do routes declaring `cors` (OAuth and MCP for browser-based hosts).
 */
function allowOrigin(ctx: Context, route: AnyRoute, deps: ApiDeps): void {
  const credentialed = route.cors?.credentialedOrigin;
  if (credentialed) {
    // A cookie-bearing caller: its one trusted origin by name, never `*` (browsers would refuse it anyway).
    ctx.vary('Origin');
    const origin = credentialed(deps);
    if (!origin || ctx.get('origin') !== origin) return;
    setHeader(ctx, 'Access-Control-Allow-Origin', origin);
    setHeader(ctx, 'Access-Control-Allow-Credentials', 'true');
  } else setHeader(ctx, 'Access-Control-Allow-Origin', '*');
  if (route.cors?.exposeHeaders) ctx.set('Access-Control-Expose-Headers', route.cors.exposeHeaders.join(', '));
}

function preflight(route: AnyRoute, deps: ApiDeps) {
  return (ctx: Context) => {
    allowOrigin(ctx, route, deps);
    ctx.set('Access-Control-Allow-Methods', route.method.toUpperCase());
    ctx.set(
      'Access-Control-Allow-Headers',
      ['authorization', 'content-type', 'idempotency-key', 'last-event-id', DRY_RUN_HEADER, ...(route.cors?.allowHeaders ?? [])].join(', '),
    );
    ctx.set('Access-Control-Max-Age', '600');
    ctx.status = 204;
  };
}

/** Path segments a route's bucket is keyed by: enough to split the API into small groups. */
const BUCKET_DEPTH = 4;

/** A path's first BUCKET_DEPTH segments, lower-cased as the router matches them (found without splitting: every request). */
function bucketKey(path: string): string {
  let end = 0;
  for (let n = 0; n < BUCKET_DEPTH && end !== -1; n++) end = path.indexOf('/', end + 1);
  return path.slice(1, end === -1 ? path.length : end).toLowerCase();
}

/** The literal segments a route path starts with, up to its first parameter (at most BUCKET_DEPTH). */
function literalPrefix(path: string): string[] {
  const segments = path
    .toLowerCase()
    .split('/')
    .slice(1, BUCKET_DEPTH + 1);
  const firstParam = segments.findIndex((s) => s.includes('{'));
  return firstParam === -1 ? segments : segments.slice(0, firstParam);
}

/**
 * The routes as one middleware. @koa/router tries every route's pattern on every request, so
 * the routes are split by their first BUCKET_DEPTH path segments, and a request tries only the
 * routes that can match its path, in their declared order: the routes of its bucket, and those
 * with a parameter (or an end) within the first segments whose literal start fits. Paths of no
 * bucket try only those.
 */
export function mountRoutes(routes: readonly AnyRoute[], deps: ApiDeps): RouterMiddleware & { routers: Router[] } {
  for (const route of routes) if (route.auth !== 'none') routeAccessOf(route);
  const prefixes = routes.map((r) => literalPrefix(r.path));
  const full = new Set(prefixes.filter((p) => p.length === BUCKET_DEPTH).map((p) => p.join('/')));
  const routers: Router[] = [];
  const routerOf = (fits: (prefix: string[]) => boolean): RouterMiddleware => {
    const router = new Router();
    routers.push(router);
    routes.forEach((route, i) => {
      if (!fits(prefixes[i]!)) return;
      router[route.method](routerPath(route.path), handle(route, deps));
      if (answersCrossOrigin(route)) router.options(routerPath(route.path), preflight(route, deps));
    });
    const [matched, allowed] = [router.routes(), router.allowedMethods()];
    return (ctx, next) => matched(ctx, () => allowed(ctx, next));
  };
  const buckets = new Map(
    [...full].map((key) => {
      const segments = key.split('/');
      return [key, routerOf((p) => p.every((s, i) => s === segments[i]))] as const;
    }),
  );
  const rest = routerOf((p) => p.length < BUCKET_DEPTH);
  // The routers are exposed for the OpenAPI test, which checks that every documented operation is mounted.
  return Object.assign(
    (ctx: Parameters<RouterMiddleware>[0], next: () => Promise<unknown>) => (buckets.get(bucketKey(ctx.path)) ?? rest)(ctx, next),
    {
      routers,
    },
  );
}
