import { describe, expect, it } from 'vitest';
import { composeProvider } from '../../../domain/modeling/index.ts';
import { GenerateInput } from '../../../schemas/modeling.ts';

// The offline provider's output (issue 34): each part placed by its transform, as glTF's
// column-major translation × rotation × scale matrix, with its document embedded.

const sources = new Map([
  ['crate', { name: 'crate', sha256: 'a'.repeat(64), document: { box: [1, 1, 1] } }],
  ['lamp', { name: 'lamp', sha256: 'b'.repeat(64), document: { light: 'warm' } }],
]);

describe('compose', () => {
  it('places each part by translation, rotation and scale', () => {
    const s = Math.SQRT1_2;
    const input = GenerateInput.parse({
      asset: 'room',
      parts: [{ asset: 'crate', translation: [0, 0, 3], rotation: [0, 0, 2 * s, 2 * s], scale: [2, 1, 1] }, { asset: 'lamp' }],
    });
    const scene = composeProvider.generate(input, sources, 'wgen_test') as { nodes: Record<string, unknown>[] };
    expect(composeProvider.creditsFor(input)).toBe(1);
    // 90° about z (the quaternion normalized): x goes to y, y to -x; x scaled by 2.
    expect(scene.nodes[0]).toMatchObject({
      asset: 'crate',
      sha256: 'a'.repeat(64),
      rotation: [0, 0, expect.closeTo(s, 9), expect.closeTo(s, 9)],
      matrix: [0, 2, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 1],
      scene: { box: [1, 1, 1] },
    });
    expect(scene.nodes[1]).toMatchObject({
      name: 'lamp.1',
      matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
      scene: { light: 'warm' },
    });
  });

  it('refuses a part whose asset is missing and a zero rotation', () => {
    const missing = GenerateInput.parse({ asset: 'room', parts: [{ asset: 'sofa' }] });
    expect(() => composeProvider.generate(missing, sources, 'wgen_test')).toThrow(
      expect.objectContaining({ code: 'world_asset_not_found' }),
    );
    const zero = GenerateInput.parse({ asset: 'room', parts: [{ asset: 'crate', rotation: [0, 0, 0, 0] }] });
    expect(() => composeProvider.generate(zero, sources, 'wgen_test')).toThrow(expect.objectContaining({ code: 'invalid_payload' }));
  });
});
