import { z } from 'zod';
import { deleteAsset, getAsset, getGeneration, listAssets, putAsset, requestGeneration } from '../../domain/modeling/index.ts';
import {
  AssetList,
  AssetParams,
  AssetSummary,
  AssetView,
  GenerateInput,
  GenerationParams,
  GenerationView,
  ModelingParams,
  PutAssetInput,
} from '../../schemas/modeling.ts';
import { defineRoute } from '../http/route.ts';

// Modeling (spec G "Modeling"; issue 34): a company's world-model assets (scene documents its apps
// show) and the generations that make new ones, charged to an app's world credits and run as
// Temporal workflows. docs/api/modeling.md describes the whole interface.

const BASE = '/api/v1/developer/modeling/{namespace}';
const READ_ERRORS = ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'organization_not_found', 'rate_limited'] as const;

export const listWorldAssetsRoute = defineRoute({
  method: 'get',
  path: `${BASE}/assets`,
  operationId: 'listWorldAssets',
  summary: 'The company’s world-model assets (scene documents) by name, without their documents',
  description:
    'The company’s developers and members by key or web session; an app ticket of the company’s app whose manifest registers ' +
    'the `modeling` SDK (any visitor role).',
  tags: ['modeling'],
  auth: 'credential',
  params: ModelingParams,
  response: { status: 200, description: 'The assets.', schema: AssetList },
  errors: [...READ_ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: { assets: await listAssets(deps.db, principal, params.namespace) } }),
});

export const getWorldAssetRoute = defineRoute({
  method: 'get',
  path: `${BASE}/assets/{name}`,
  operationId: 'getWorldAsset',
  summary: 'One world-model asset with its scene document, read from the blob store',
  tags: ['modeling'],
  auth: 'credential',
  params: AssetParams,
  response: { status: 200, description: 'The asset and its document.', schema: AssetView },
  errors: [...READ_ERRORS, 'world_asset_not_found'],
  handler: async ({ deps, principal, params }) => ({ data: await getAsset(deps, principal, params.namespace, params.name) }),
});

export const putWorldAssetRoute = defineRoute({
  method: 'put',
  path: `${BASE}/assets/{name}`,
  operationId: 'putWorldAsset',
  summary: 'Upload a scene document as the named asset, or replace it (201 when created, 200 when replaced)',
  description: 'The company’s developers by key or web session. The document is a JSON object of at most 1 MiB serialized.',
  tags: ['modeling'],
  auth: 'credential',
  write: true,
  bodyLimit: 2 * 1024 * 1024,
  params: AssetParams,
  body: PutAssetInput,
  response: { status: 200, description: 'The stored asset (201 when it is new).', schema: AssetSummary },
  errors: [...READ_ERRORS, 'invalid_payload', 'payload_too_large', 'conflict'],
  async handler({ db, deps, principal, params, body, dryRun }) {
    const { created, asset } = await putAsset(
      { db, blobs: deps.blobs, clock: deps.clock },
      principal,
      params.namespace,
      params.name,
      body,
      dryRun,
    );
    return { status: created ? 201 : 200, data: asset };
  },
});

export const deleteWorldAssetRoute = defineRoute({
  method: 'delete',
  path: `${BASE}/assets/{name}`,
  operationId: 'deleteWorldAsset',
  summary: 'Remove a world-model asset (scenes composed from it keep their embedded copy)',
  tags: ['modeling'],
  auth: 'credential',
  write: true,
  params: AssetParams,
  response: { status: 200, description: 'Removed.', schema: z.object({ name: z.string(), deleted: z.literal(true) }) },
  errors: [...READ_ERRORS, 'world_asset_not_found'],
  async handler({ db, principal, params }) {
    await deleteAsset(db, principal, params.namespace, params.name);
    return { data: { name: params.name, deleted: true as const } };
  },
});

export const requestWorldGenerationRoute = defineRoute({
  method: 'post',
  path: `${BASE}/generations`,
  operationId: 'requestWorldGeneration',
  summary: 'Ask for a new scene, charged to the app’s world credits of today; it runs as a Temporal workflow',
  description:
    'An app ticket (not a viewer’s) of the company’s app whose manifest registers `modeling`. The provider `compose` (the one ' +
    'that runs offline) places existing assets by translation, rotation and scale into a new `svc.scene/1` document stored as ' +
    '`asset`; it costs 1 credit. The credits are counted when the request is accepted: past the manifest’s `worldCreditsPerDay` ' +
    '(default 0: view only) the answer is 429 quota_exhausted with `details.limit: worldCreditsPerDay`, `used`, `needed`, ' +
    '`limitCredits` and `resetsAt` (00:00 UTC) and Retry-After. Official public apps never generate (403).',
  tags: ['modeling'],
  auth: 'credential',
  write: true,
  params: ModelingParams,
  body: GenerateInput,
  response: { status: 202, description: 'Accepted: the generation, queued.', schema: GenerationView },
  errors: [...READ_ERRORS, 'invalid_payload', 'payload_too_large', 'world_asset_not_found', 'quota_exhausted'],
  handler: async ({ db, deps, principal, params, body }) => ({
    status: 202,
    data: await requestGeneration(db, deps.clock, principal, params.namespace, body),
  }),
});

export const getWorldGenerationRoute = defineRoute({
  method: 'get',
  path: `${BASE}/generations/{id}`,
  operationId: 'getWorldGeneration',
  summary: 'A world generation: queued, succeeded (its asset is stored) or failed (`error`), and its workflow id',
  tags: ['modeling'],
  auth: 'credential',
  params: GenerationParams,
  response: { status: 200, description: 'The generation.', schema: GenerationView },
  errors: [...READ_ERRORS, 'world_generation_not_found'],
  handler: async ({ deps, principal, params }) => ({ data: await getGeneration(deps.db, principal, params.namespace, params.id) }),
});

export const modelingRoutes = [
  listWorldAssetsRoute,
  getWorldAssetRoute,
  putWorldAssetRoute,
  deleteWorldAssetRoute,
  requestWorldGenerationRoute,
  getWorldGenerationRoute,
];
