import { z } from 'zod';
import { cancelBuild, createBuild, getBuild, listBuilds } from '../../domain/connectivity/index.ts';
import { Namespace } from '../../schemas/app-log.ts';
import { BuildId, BuildView, CreateBuildInput } from '../../schemas/connectivity.ts';
import { defineRoute } from '../http/route.ts';

// Builds (spec G, `/api/v1/orchestration/builds/**`; shapes ours): one or more syncs run in
// dependency order by one Temporal workflow, whose id every answer carries.
const ERRORS = ['unauthorized', 'forbidden', 'invalid_path', 'organization_not_found'] as const;
const Ns = z.object({ namespace: Namespace });
const BuildParams = Ns.extend({ buildId: BuildId });

export const createBuildRoute = defineRoute({
  method: 'post',
  path: '/api/v1/orchestration/builds/{namespace}',
  operationId: 'createBuild',
  summary: 'Run syncs in dependency order as one build (a Temporal workflow)',
  description:
    'Jobs run one at a time, each after the jobs it depends on; a failed job fails its dependants (error dependency_failed) while independent jobs ' +
    'still run, and pages committed before a failure stay. The answer is QUEUED with the run’s Temporal workflow id.',
  tags: ['orchestration'],
  auth: 'credential',
  write: true,
  params: Ns,
  body: CreateBuildInput,
  response: { status: 201, description: 'The build, queued.', schema: BuildView },
  errors: [...ERRORS, 'invalid_payload', 'sync_not_found'],
  handler: async ({ db, principal, params, body }) => ({ data: await createBuild(db, principal, params.namespace, body) }),
});

export const listBuildsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/orchestration/builds/{namespace}',
  operationId: 'listBuilds',
  summary: 'The company’s latest builds, newest first, each with its jobs',
  tags: ['orchestration'],
  auth: 'credential',
  params: Ns,
  query: z.strictObject({ pageSize: z.coerce.number().int().min(1).max(100).default(20) }),
  response: { status: 200, description: 'Builds.', schema: z.object({ data: z.array(BuildView) }) },
  errors: [...ERRORS, 'invalid_payload'],
  handler: async ({ db, principal, params, query }) => ({ data: await listBuilds(db, principal, params.namespace, query.pageSize) }),
});

export const getBuildRoute = defineRoute({
  method: 'get',
  path: '/api/v1/orchestration/builds/{namespace}/{buildId}',
  operationId: 'getBuild',
  summary: 'One build: status, duration, Temporal workflow id; per job status, rows read and written, pages, duration, error',
  tags: ['orchestration'],
  auth: 'credential',
  params: BuildParams,
  response: { status: 200, description: 'The build.', schema: BuildView },
  errors: [...ERRORS, 'build_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await getBuild(db, principal, params.namespace, params.buildId) }),
});

export const cancelBuildRoute = defineRoute({
  method: 'post',
  path: '/api/v1/orchestration/builds/{namespace}/{buildId}/cancel',
  operationId: 'cancelBuild',
  summary: 'Cancel a queued or running build (pages committed so far stay)',
  tags: ['orchestration'],
  auth: 'credential',
  write: true,
  params: BuildParams,
  response: { status: 200, description: 'The build, CANCELLED.', schema: BuildView },
  errors: [...ERRORS, 'build_not_found', 'build_finished'],
  handler: async ({ db, principal, params }) => ({ data: await cancelBuild(db, principal, params.namespace, params.buildId) }),
});

export const orchestrationRoutes = [createBuildRoute, listBuildsRoute, getBuildRoute, cancelBuildRoute];
