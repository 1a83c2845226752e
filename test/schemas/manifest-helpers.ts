import { expect } from 'vitest';
import type { Manifest } from '../../schemas/manifest/manifest.ts';
import { parseManifest } from '../../schemas/manifest/parse-manifest.ts';
import type { Problem } from '../../schemas/problems.ts';

/** Smallest valid manifest; tests add or override fields. */
export function baseManifest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { slug: 'sales-board', version: '1.0.0', title: 'Sales board', ...overrides };
}

export function parsed(overrides: Record<string, unknown> = {}): Manifest {
  const result = parseManifest(baseManifest(overrides));
  if (!result.ok) throw new Error(`expected a valid manifest, got ${JSON.stringify(result.problems)}`);
  return result.manifest;
}

export function problemsOf(overrides: Record<string, unknown>): Problem[] {
  const result = parseManifest(baseManifest(overrides));
  return result.ok ? [] : result.problems;
}

/** Asserts that the problems include one at exactly `path` (and with `code` when given). */
export function expectProblemAt(problems: readonly Problem[], path: string, code?: string): void {
  expect(problems.map((p) => ({ path: p.path, code: p.code }))).toContainEqual(
    code === undefined ? expect.objectContaining({ path }) : { path, code },
  );
}
