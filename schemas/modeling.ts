import { z } from 'zod';
import { CellId } from './identity.ts';
import { SLUG_PATTERN } from './manifest/index.ts';

// Modeling contracts (spec G "Modeling", Limits `worldCreditsPerDay`): a company's world-model
// assets (scene documents an app can view) and the generation requests that make new ones.

export const MODELING_LIMITS = {
  /** A scene document's serialized size, uploaded or generated. */
  assetBytes: 1024 * 1024,
  assetsPerCompany: 1000,
  /** Parts one composition combines. */
  parts: 32,
} as const;

/** The providers this service can run; `compose` is the one that works offline. */
export const WORLD_PROVIDERS = ['compose'] as const;
export type WorldProvider = (typeof WORLD_PROVIDERS)[number];

/** What a composed scene document declares as its format. */
export const SCENE_FORMAT = 'svc.scene/1';

export const AssetName = z.string().regex(SLUG_PATTERN, 'must be a lowercase kebab name');
export const ModelingParams = z.object({ namespace: CellId });
export const AssetParams = z.object({ namespace: CellId, name: AssetName });
export const GenerationParams = z.object({
  namespace: CellId,
  id: z.string().regex(/^wgen_[A-Za-z0-9_-]{1,64}$/, 'must be a generation id'),
});

export const AssetDocument = z
  .record(z.string(), z.unknown())
  .meta({ description: 'The scene as a JSON object (a glTF JSON document, a composed `svc.scene/1` document, or your own scene format).' });

export const PutAssetInput = z.strictObject({ document: AssetDocument });
export type PutAssetInput = z.output<typeof PutAssetInput>;

export const AssetSummary = z.object({
  name: z.string(),
  sha256: z.string().meta({ description: 'SHA-256 of the stored document (hex): changes whenever the document does.' }),
  size: z.number().int().meta({ description: 'Bytes of the stored (serialized) document.' }),
  generationId: z.string().nullable().meta({ description: 'The generation that made it; null for an uploaded asset.' }),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AssetSummary = z.output<typeof AssetSummary>;
export const AssetList = z.object({ assets: z.array(AssetSummary) });
export const AssetView = AssetSummary.extend({ document: AssetDocument });
export type AssetView = z.output<typeof AssetView>;

const Vec3 = z.tuple([z.number().finite(), z.number().finite(), z.number().finite()]);
const Quaternion = z.tuple([z.number().finite(), z.number().finite(), z.number().finite(), z.number().finite()]);

export const ComposePart = z.strictObject({
  asset: AssetName.meta({ description: 'An asset of the same company.' }),
  translation: Vec3.default([0, 0, 0]),
  rotation: Quaternion.default([0, 0, 0, 1]).meta({ description: 'A rotation quaternion [x, y, z, w]; normalized when stored.' }),
  scale: Vec3.default([1, 1, 1]),
});

export const GenerateInput = z.strictObject({
  provider: z.enum(WORLD_PROVIDERS).default('compose'),
  asset: AssetName.meta({ description: 'The name the generated scene is stored under (replacing an asset of that name).' }),
  parts: z.array(ComposePart).min(1).max(MODELING_LIMITS.parts),
});
export type GenerateInput = z.output<typeof GenerateInput>;

export const GENERATION_STATUSES = ['queued', 'succeeded', 'failed'] as const;

export const GenerationView = z.object({
  id: z.string(),
  provider: z.enum(WORLD_PROVIDERS),
  asset: z.string().meta({ description: 'The asset the result is (or will be) stored as.' }),
  status: z.enum(GENERATION_STATUSES),
  credits: z.number().int().meta({ description: 'World credits this generation counted against the app’s `worldCreditsPerDay`.' }),
  workflowId: z.string().meta({ description: 'The Temporal workflow that runs it.' }),
  error: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type GenerationView = z.output<typeof GenerationView>;
