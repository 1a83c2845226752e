import { describe, expect, it } from 'vitest';
import { expectProblemAt, parsed, problemsOf } from './manifest-helpers.ts';

const token = (overrides: Record<string, unknown> = {}) => ({ name: '--accent-hue', slot: 'hero', min: 0, max: 360, ...overrides });

describe('evolve', () => {
  it('fills defaults', () => {
    expect(parsed({ evolve: {} }).evolve).toEqual({ slots: [], tokens: [], baked: [] });
    expect(parsed({ evolve: { slots: [{ name: 'hero' }] } }).evolve?.slots).toEqual([{ name: 'hero', aliases: [] }]);
  });

  it('accepts slots with aliases, tokens, baked improvements and a model', () => {
    const evolve = {
      slots: [{ name: 'hero', aliases: ['banner'] }],
      tokens: [token({ default: 200, step: 5, unit: 'deg' })],
      baked: ['imp-1'],
      model: 'gpt-5',
    };
    expect(parsed({ evolve }).evolve).toEqual({ ...evolve, slots: [{ name: 'hero', aliases: ['banner'] }] });
  });

  it.each([
    ['manifest.evolve.slots[0].name', { slots: [{ name: 'Hero' }] }],
    ['manifest.evolve.slots[0].aliases[0]', { slots: [{ name: 'hero', aliases: ['a b'] }] }],
    ['manifest.evolve.slots[1]', { slots: [{ name: 'hero' }, { name: 'top', aliases: ['hero'] }] }],
    ['manifest.evolve.tokens[0].name', { tokens: [token({ name: 'accent' })] }],
    ['manifest.evolve.tokens[0].max', { tokens: [token({ min: 5, max: 5 })] }],
    ['manifest.evolve.tokens[0].default', { tokens: [token({ default: 400 })] }],
    ['manifest.evolve.tokens[0].unit', { tokens: [token({ unit: 'pt' })] }],
    ['manifest.evolve.tokens[1].name', { tokens: [token(), token()] }],
    ['manifest.evolve.tokens[0].slot', { tokens: [{ name: '--x', min: 0, max: 1 }] }],
    ['manifest.evolve.baked', { baked: Array.from({ length: 61 }, (_, i) => `i${i}`) }],
    ['manifest.evolve.model', { model: '' }],
  ])('rejects a bad value at %s', (path, evolve) => {
    expectProblemAt(problemsOf({ evolve }), path);
  });
});
