import type { Context } from 'koa';
import type { z } from 'zod';
import type { DbOrTrx } from '../../domain/db/index.ts';
import type { Principal } from '../../domain/principal.ts';
import type { ErrorCode } from '../../schemas/errors.ts';
import type { ApiDeps } from '../deps.ts';
import type { JsonText } from './envelope.ts';

// A route is declared once: the same object is mounted on the router and
// written into the OpenAPI document, so the two cannot drift apart.

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * How a route takes its credential. Who it admits is not declared here: the route table
 * (domain/policy/route-access.ts, by operationId) decides, and `authenticate` consults it.
 * `none`: no credential is read (the table admits anonymous callers only); `credential`: one is
 * required; `renewal`: ticket renewal, where an expired ticket is still accepted, up to 24 hours
 * after its expiry.
 */
export type AuthRequirement = 'none' | 'credential' | 'renewal';

export interface PrepareInput<P, Q, B, A extends AuthRequirement = AuthRequirement> {
  /** The authenticated caller; null only on routes declared `auth: 'none'`. */
  principal: A extends 'none' ? null : Principal;
  /** The caller's address (X-Forwarded-For only through configured proxies). */
  ip: string;
  params: P;
  query: Q;
  body: B;
  dryRun: boolean;
  deps: ApiDeps;
  ctx: Context;
}

export interface HandlerInput<P, Q, B, A extends AuthRequirement = AuthRequirement, X = undefined> extends PrepareInput<P, Q, B, A> {
  /** What `prepare` returned. */
  prepared: X;
  /** The request's transaction on write routes, the pool on reads. Handlers write only through it. */
  db: DbOrTrx;
  /** Side effects outside the database (workflows, files, mail) run only once the transaction commits. */
  afterCommit(effect: () => Promise<void>): void;
}

export interface HandlerResult<R> {
  status?: number;
  data: R | JsonText;
  /** The dry-run answer when it must differ from `data` (e.g. never show a secret that would be issued). */
  plan?: unknown;
  headers?: Record<string, string>;
}

export interface RouteDef<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
  A extends AuthRequirement = AuthRequirement,
  X = undefined,
> {
  method: HttpMethod;
  /** OpenAPI form: `/api/v1/developer/apps/{namespace}/{slug}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /**
   * Marks the operation deprecated: the summary names the replacement (`successor`, an OpenAPI
   * path whose placeholders are filled from this request's), and each answer carries RFC 9745's
   * `Deprecation: @<seconds>` (since when) and `Link: <successor>; rel="successor-version"`.
   */
  deprecated?: { successor: string; since: Date };
  /**
   * Request budget per minute. `per: 'ip'` (default): per source IP, checked before anything else
   * (before the body is read). `per: 'tenant'`: per company and source IP, checked right after
   * authentication, so companies behind one address (a NAT, a proxy) never share it (rate-limit.ts `tenantOf`).
   */
  rateLimit?: { perMinute: number; per?: 'ip' | 'tenant' };
  /**
   * Largest body read, in bytes. Defaults: 4 KiB on routes that need no credential (login
   * forms, device codes), 64 KiB otherwise; `'upload'` is the configured upload limit
   * (SVC_MAX_BODY_BYTES), for version bundles.
   */
  bodyLimit?: number | 'upload';
  /** Whether a credential is read (who is admitted: the route table); enforced after the rate limit and before validation. */
  auth: A;
  /**
   * A body of this media type (besides JSON) is read as text and given to the schema as a string
   * (CSV), or as an object of its fields (a form).
   */
  textBody?: 'text/csv' | 'application/x-www-form-urlencoded';
  /**
   * `oauth`: failures answer in the OAuth shape (RFC 6749 5.2: `{error, error_description}`, the
   * `error` from `details.oauthError`), for the OAuth endpoints hosts call.
   */
  errorFormat?: 'oauth';
  /**
   * Answers any origin (routes that take app tickets always do): for browser-based clients whose
   * credential is never a cookie. `allowHeaders` and `exposeHeaders` add to the CORS defaults.
   */
  cors?: {
    allowHeaders?: readonly string[];
    exposeHeaders?: readonly string[];
    /**
     * Instead of any origin: only this one, with the browser's cookies (`credentials: 'include'`),
     * e.g. the Temporal Web UI calling the codec endpoint as the signed-in person. Unset: no origin.
     */
    credentialedOrigin?(deps: ApiDeps): string | undefined;
  };
  /** The `WWW-Authenticate` challenge of a 401 (default `Bearer`), e.g. pointing at OAuth metadata. */
  authChallenge?(ctx: Context, deps: ApiDeps): string;
  /**
   * The body is bytes of any type (a media item), read by the route itself (`prepare`, before the
   * write's transaction) rather than as JSON: documented as `application/octet-stream`.
   */
  binaryBody?: { description: string };
  /** The success answer's media type when it is not JSON (bytes sent as they are; `envelope: false`). */
  responseType?: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Success data (inside the envelope unless `envelope` is false). */
  response: { status: number; description: string; schema: R };
  /** Failure codes this route answers with, for the document. */
  errors?: ErrorCode[];
  /** Writes run in one transaction, accept x-svc-dry-run and are retried on serialization failures. */
  write?: boolean;
  /**
   * A read route whose handler may still cause writes (the MCP endpoint, whose tool calls start
   * runs in transactions of their own): `x-svc-dry-run` is read and given to the handler, which
   * must then write nothing and answer its plan in its own shape.
   */
  ownDryRun?: boolean;
  /** Reads made of several queries run in one read-only REPEATABLE READ transaction, so they see one state. */
  snapshot?: boolean;
  /** false: send `data` as the whole body (documents such as openapi.json). */
  envelope?: boolean;
  /**
   * Runs after validation and before the write's transaction opens, on the pool:
   * the place for checks whose own writes must stick even when the request fails
   * or is a dry run (rate-limit counters, login failures, poll clocks), and for
   * slow work (password hashing) that should not hold a transaction's connection.
   */
  prepare?(input: PrepareInput<z.output<P>, z.output<Q>, z.output<B>, A>): Promise<X>;
  handler(input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>, A, X>): Promise<HandlerResult<z.input<R>>>;
}

export type AnyRoute = RouteDef<any, any, any, any, any, any>;

/** Identity function that gives the handler its inferred types. */
export function defineRoute<
  P extends z.ZodType,
  Q extends z.ZodType,
  B extends z.ZodType,
  R extends z.ZodType,
  const A extends AuthRequirement,
  X = undefined,
>(def: RouteDef<P, Q, B, R, A, X>): RouteDef<P, Q, B, R, A, X> {
  return def;
}

export const BODY_LIMITS = { noCredential: 4 * 1024, default: 64 * 1024 } as const;

/** The body limit a route applies (see `RouteDef.bodyLimit`). */
export function bodyLimitOf(route: AnyRoute, uploadLimit: number): number {
  if (route.bodyLimit === 'upload') return uploadLimit;
  return route.bodyLimit ?? (route.auth === 'none' ? BODY_LIMITS.noCredential : BODY_LIMITS.default);
}

/** `/a/{b}/c` -> `/a/:b/c` for @koa/router. */
export function routerPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/**
 * The answer of a write that issues a secret (a token, a link, a ticket): the dry-run plan is the
 * same answer without it, so a secret that was rolled back is never shown.
 */
export function withoutIssuedSecret<T extends object, K extends keyof T>(data: T, secret: K): { data: T; plan: Omit<T, K> } {
  const { [secret]: _notIssued, ...plan } = data;
  return { data, plan: plan as Omit<T, K> };
}
