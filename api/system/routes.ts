import { z } from 'zod';
import { readInstance } from '../../domain/system/instance.ts';
import { API_VERSION, buildOpenApiDocument } from '../http/openapi.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';

const Health = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    instanceId: z.string(),
    instanceCreatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Health' });

export const healthRoute = defineRoute({
  method: 'get',
  path: '/api/v1/health',
  operationId: 'getHealth',
  summary: 'Liveness and database check',
  tags: ['system'],
  auth: 'none',
  response: { status: 200, description: 'The service and its database answer.', schema: Health },
  async handler({ db }) {
    // Reading the instance row is the database check.
    const { instanceId, createdAt } = await readInstance(db);
    return { data: { status: 'ok' as const, version: API_VERSION, instanceId, instanceCreatedAt: createdAt.toISOString() } };
  },
});

const OpenApiDocument = z.object({ openapi: z.string() }).catchall(z.unknown());

/** Needs the full route list, itself included, hence a factory. */
export function openApiRoute(allRoutes: () => readonly AnyRoute[]) {
  let document: z.output<typeof OpenApiDocument> | undefined;
  return defineRoute({
    method: 'get',
    path: '/api/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This API as an OpenAPI 3.1.0 document',
    tags: ['system'],
    auth: 'none',
    envelope: false,
    response: {
      status: 200,
      description: 'The OpenAPI document (not wrapped in the envelope).',
      schema: OpenApiDocument,
    },
    async handler({ deps }) {
      // The generator's interface type has no index signature; the value is a plain JSON object.
      document ??= buildOpenApiDocument(allRoutes(), deps.addresses().baseUrl) as unknown as z.output<typeof OpenApiDocument>;
      return { data: document };
    },
  });
}
