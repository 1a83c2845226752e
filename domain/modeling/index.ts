// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { deleteAsset } from './delete-asset.ts';
export { getAsset } from './get-asset.ts';
export { getGeneration } from './get-generation.ts';
export { listAssets } from './list-assets.ts';
export { composeProvider, type WorldGenerationProvider } from './providers.ts';
export { putAsset } from './put-asset.ts';
export { requestGeneration } from './request-generation.ts';
export { type GenerationOutcome, runGeneration } from './run-generation.ts';
