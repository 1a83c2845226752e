import { type GenerateInput, SCENE_FORMAT, type WorldProvider } from '../../schemas/modeling.ts';
import { DomainError } from '../errors.ts';

/** An input asset as a provider receives it. */
export interface SourceAsset {
  name: string;
  sha256: string;
  document: Record<string, unknown>;
}

/**
 * A world-model generator. The credits a request costs are known before it runs (they are counted
 * when the request is accepted); `generate` answers the new scene document.
 */
export interface WorldGenerationProvider {
  id: WorldProvider;
  creditsFor(input: GenerateInput): number;
  generate(input: GenerateInput, sources: ReadonlyMap<string, SourceAsset>, generationId: string): Record<string, unknown>;
}

type Quaternion = [number, number, number, number];

/** The unit quaternion of a rotation, or invalid_payload for a zero one (it is no rotation). */
export function normalizeRotation(q: readonly number[], at: number): Quaternion {
  const length = Math.hypot(...q);
  if (!(length > 1e-9) || !Number.isFinite(length)) {
    throw new DomainError('invalid_payload', `parts[${at}].rotation must be a non-zero quaternion [x, y, z, w].`, {
      details: { path: ['parts', at, 'rotation'] },
    });
  }
  return q.map((v) => v / length) as Quaternion;
}

/** The 4×4 column-major matrix (glTF's order) of translation × rotation × scale. */
export function trsMatrix(t: readonly number[], q: Quaternion, s: readonly number[]): number[] {
  const [x, y, z, w] = q;
  const [sx, sy, sz] = s as [number, number, number];
  const round = (v: number) => Math.round(v * 1e9) / 1e9 + 0;
  return [
    (1 - 2 * (y * y + z * z)) * sx,
    2 * (x * y + z * w) * sx,
    2 * (x * z - y * w) * sx,
    0,
    2 * (x * y - z * w) * sy,
    (1 - 2 * (x * x + z * z)) * sy,
    2 * (y * z + x * w) * sy,
    0,
    2 * (x * z + y * w) * sz,
    2 * (y * z - x * w) * sz,
    (1 - 2 * (x * x + y * y)) * sz,
    0,
    t[0]!,
    t[1]!,
    t[2]!,
    1,
  ].map(round);
}

/**
 * The offline provider: a new scene made of the company's existing assets, each placed by its
 * translation, rotation and scale. The result is self-contained (every part's document is embedded,
 * with the hash it was read at), so a viewer needs no other asset to show it. One credit a scene.
 */
export const composeProvider: WorldGenerationProvider = {
  id: 'compose',
  creditsFor: () => 1,
  generate(input, sources, generationId) {
    const nodes = input.parts.map((part, i) => {
      const source = sources.get(part.asset);
      if (!source)
        throw new DomainError('world_asset_not_found', `No world-model asset ${part.asset}.`, { details: { asset: part.asset } });
      const rotation = normalizeRotation(part.rotation, i);
      return {
        name: `${part.asset}.${i}`,
        asset: part.asset,
        sha256: source.sha256,
        translation: part.translation,
        rotation,
        scale: part.scale,
        matrix: trsMatrix(part.translation, rotation, part.scale),
        scene: source.document,
      };
    });
    return { format: SCENE_FORMAT, generator: { provider: 'compose', generationId }, nodes };
  },
};

export const WORLD_GENERATORS: Record<WorldProvider, WorldGenerationProvider> = { compose: composeProvider };
