// Property test: random paths from an alphabet rich in dangerous pieces; every accepted path
// must be safe. A seeded PRNG keeps failures reproducible.
import { describe, expect, it } from 'vitest';
import { checkBundlePath } from '../../../schemas/bundle/paths.ts';

// mulberry32
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'a',
  'b',
  'Z',
  '0',
  '-',
  '_',
  '.',
  '..',
  '/',
  '//',
  '\\',
  ' ',
  '\u0000',
  '\t',
  '\u202e',
  'e\u0301',
  'é',
  '%',
  '?',
  ':',
  'node_modules',
  'developer/sdk/',
  '.git',
  'index',
  '.html',
  '.js',
  '~',
  '\u00a0',
  '\uff0e',
  '\u2024',
  'con',
  'Lpt1',
];

function randomPath(next: () => number): string {
  const length = 1 + Math.floor(next() * 8);
  let path = '';
  for (let i = 0; i < length; i += 1) path += PIECES[Math.floor(next() * PIECES.length)];
  return path;
}

describe('path safety (property)', () => {
  it('every accepted path is normalized, relative and free of ../hidden/backslash/empty segments', () => {
    const next = prng(20240601);
    let accepted = 0;
    let rejected = 0;
    for (let i = 0; i < 20000; i += 1) {
      const raw = randomPath(next);
      const result = checkBundlePath(raw);
      if (!result.ok) {
        rejected += 1;
        continue;
      }
      accepted += 1;
      const path = result.path;
      expect(path).toBe(raw.normalize('NFC'));
      expect(path.normalize('NFC')).toBe(path);
      expect(path.startsWith('/')).toBe(false);
      expect(path.includes('\\')).toBe(false);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: asserts that no control character survives.
      expect(/[\u0000-\u001f\u007f]/.test(path)).toBe(false);
      expect(path.includes('developer/sdk/')).toBe(false);
      for (const segment of path.split('/')) {
        expect(segment).not.toBe('');
        expect(segment).not.toBe('..');
        expect(segment.startsWith('.')).toBe(false);
        expect(segment.toLowerCase()).not.toBe('node_modules');
        expect(/^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i.test((segment.split('.')[0] ?? '').trimEnd())).toBe(false);
      }
      expect(path.normalize('NFKC')).toBe(path);
    }
    // The generator must exercise both outcomes, or the property says nothing.
    expect(accepted).toBeGreaterThan(1000);
    expect(rejected).toBeGreaterThan(1000);
  });

  it('the verdict does not depend on Unicode normalization form', () => {
    const next = prng(7);
    for (let i = 0; i < 2000; i += 1) {
      const raw = randomPath(next);
      expect(checkBundlePath(raw.normalize('NFD'))).toEqual(checkBundlePath(raw.normalize('NFC')));
    }
  });
});
