import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { credentialTypesOf } from '../../domain/policy/index.ts';
import { ERRORS } from '../../schemas/errors.ts';
import versionFile from '../../version.json' with { type: 'json' };
import { ApiFailure, ApiSuccess, apiSuccess, DryRunPlan } from './envelope.ts';
import { DRY_RUN_HEADER, routeAccessOf } from './mount-routes.ts';
import type { AnyRoute } from './route.ts';

export const API_VERSION: string = versionFile.version;

/** The error table as Markdown, the same rows docs/api/errors.md shows (npm run docs prints it there). */
export function errorTable(): string {
  const rows = Object.entries(ERRORS).map(([code, { status, meaning }]) => `| \`${code}\` | ${status} | ${meaning} |`);
  return ['| Code | HTTP | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/** Bytes of any type (media items). */
const BINARY = z.string().meta({ format: 'binary' });
const failure = (description: string) => ({ description, content: { 'application/json': { schema: ApiFailure } } });

/** The OpenAPI 3.1.0 document, generated from the very route objects that are mounted. */
export function buildOpenApiDocument(routes: readonly AnyRoute[], serverUrl?: string) {
  const registry = new OpenAPIRegistry();
  // Not referenced by any one operation (each documents its own `data`), so registered by hand.
  const { $schema: _draft, ...apiSuccessSchema } = z.toJSONSchema(ApiSuccess);
  registry.registerComponent('schemas', 'ApiSuccess', apiSuccessSchema as never);
  const schemes = {
    key: registry.registerComponent('securitySchemes', 'developerKey', {
      type: 'http',
      scheme: 'bearer',
      description: 'A developer key: Authorization: Bearer svc-dk-…',
    }).name,
    session: registry.registerComponent('securitySchemes', 'webSession', {
      type: 'apiKey',
      in: 'cookie',
      name: 'svc_session',
      description: 'The web session cookie (`__Host-svc_session` over https); writes must be same-origin.',
    }).name,
    ticket: registry.registerComponent('securitySchemes', 'appTicket', {
      type: 'http',
      scheme: 'bearer',
      description: 'An app ticket: Authorization: Bearer svc-at-… (injected into the app page; admits only its own app).',
    }).name,
  };
  for (const route of routes) {
    const successSchema = route.envelope === false ? route.response.schema : apiSuccess(route.response.schema);
    const responses: Record<string, unknown> = {
      [route.response.status]: {
        description: route.response.description,
        content: { [route.responseType ?? 'application/json']: { schema: route.responseType ? BINARY : successSchema } },
      },
    };
    if (route.write) {
      responses[202] = {
        description: `Dry run (\`${DRY_RUN_HEADER}: true\`): the plan; nothing was changed.`,
        content: { 'application/json': { schema: apiSuccess(DryRunPlan) } },
      };
    }
    // A body is read within the process's body buffer: rate_limited while it is full.
    const bodyCodes = ['malformed_json', 'invalid_payload', 'payload_too_large', 'rate_limited'] as const;
    const codes = [...(route.errors ?? []), ...(route.body ? bodyCodes : [])];
    if (codes.length) responses['4XX'] = failure(`Failure envelope; error.code is one of: ${[...new Set(codes)].join(', ')}.`);
    responses['5XX'] = failure('Failure envelope: internal_error, service_unavailable or timeout.');

    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.deprecated ? `Deprecated: use ${route.deprecated.successor}. ${route.summary}` : route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags,
      ...(route.deprecated ? { deprecated: true } : {}),
      security:
        route.auth === 'none'
          ? []
          : (Object.entries(credentialTypesOf(routeAccessOf(route))) as [keyof typeof schemes, boolean][])
              .filter(([, read]) => read)
              .map(([kind]) => ({ [schemes[kind]]: [] })),
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(route.body
          ? {
              body: {
                // A schema that takes no body (the part routes: no body or {}) documents it as optional.
                required: !route.body.safeParse(undefined).success,
                content: {
                  'application/json': { schema: route.body },
                  ...(route.textBody ? { [route.textBody]: { schema: z.string() } } : {}),
                },
              },
            }
          : route.binaryBody
            ? {
                body: {
                  required: true,
                  description: route.binaryBody.description,
                  content: { 'application/octet-stream': { schema: BINARY } },
                },
              }
            : {}),
        ...(route.write
          ? {
              headers: z.object({
                [DRY_RUN_HEADER]: z.enum(['true', 'false']).optional().meta({ description: 'Validate and plan only; change nothing.' }),
              }),
            }
          : {}),
      },
      responses: responses as never,
    });
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Developer API',
      version: API_VERSION,
      description: `Every failure uses the ApiFailure envelope; \`error.code\` has one HTTP status:\n\n${errorTable()}`,
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
  });
}
