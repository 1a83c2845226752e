import { z } from 'zod';
import { DomainError } from '../../domain/errors.ts';
import { checkReadiness } from '../../domain/system/index.ts';
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

/** How long each readiness check may take before it counts as failed. */
export const READINESS_DEADLINE_MS = 2000;

const CheckResult = z
  .discriminatedUnion('status', [
    z.object({ status: z.literal('ok'), ms: z.number().int() }),
    z.object({ status: z.literal('failed'), ms: z.number().int(), reason: z.string() }),
    z.object({ status: z.literal('skipped'), reason: z.string().describe('Why this process does not use it.') }),
  ])
  .meta({ id: 'ReadinessCheck' });

const Ready = z
  .object({
    status: z.literal('ready'),
    checks: z.object({ database: CheckResult, temporal: CheckResult, blobStore: CheckResult, shutdown: CheckResult }),
  })
  .meta({ id: 'Readiness' });

export const healthRoute = defineRoute({
  method: 'get',
  path: '/api/v1/health',
  operationId: 'getHealth',
  summary: 'Liveness: the process answers (no dependency is checked)',
  description:
    'For a supervisor or orchestrator deciding whether to restart the process. It reads nothing: the instance ' +
    'was read at start. Whether the process can serve now is GET /api/v1/health/ready.',
  tags: ['system'],
  auth: 'none',
  response: { status: 200, description: 'The process answers.', schema: Health },
  async handler({ deps }) {
    const { instanceId, createdAt } = deps.health.instance;
    return { data: { status: 'ok' as const, version: API_VERSION, instanceId, instanceCreatedAt: createdAt.toISOString() } };
  },
});

export const readinessRoute = defineRoute({
  method: 'get',
  path: '/api/v1/health/ready',
  operationId: 'getReadiness',
  summary: 'Readiness: the database, Temporal and the blob store answer, each within 2 s, and no shutdown has begun',
  description:
    'For a load balancer or orchestrator deciding whether to send traffic. database: SELECT 1 on the service pool. ' +
    'temporal: DescribeNamespace, in processes that run the worker (role all); the api role does not use Temporal ' +
    '(workflow starts wait in the outbox) and reports it skipped. blobStore: HeadBucket with an s3:// store; the ' +
    'postgres store is the database, reported skipped. shutdown: fails from SIGTERM/SIGINT on, while the process ' +
    'still serves for SVC_SHUTDOWN_DELAY_MS before it stops listening. 503 service_unavailable names the failing checks ' +
    '(details.failing) with every result (details.checks).',
  tags: ['system'],
  auth: 'none',
  response: { status: 200, description: 'Every check this process uses passed.', schema: Ready },
  errors: ['service_unavailable'],
  async handler({ deps }) {
    const { ready, checks } = await checkReadiness(deps.health.readiness, READINESS_DEADLINE_MS, (name, err) =>
      deps.logger.warn({ err, check: name }, 'readiness check failed'),
    );
    if (!ready) {
      const failing = Object.keys(checks).filter((name) => checks[name]?.status === 'failed');
      throw new DomainError('service_unavailable', `Not ready: ${failing.join(', ')}.`, {
        details: { failing, checks },
        retryAfterSeconds: 5,
      });
    }
    return { data: { status: 'ready' as const, checks: checks as z.input<typeof Ready>['checks'] } };
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
