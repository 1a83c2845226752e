import { issuesToProblems, type Problem, problem } from '../problems.ts';
import { type Manifest, manifestSchema } from './manifest.ts';

export type ParseManifestResult = { ok: true; manifest: Manifest } | { ok: false; problems: Problem[] };

/**
 * Validates a manifest and fills every default. Accepts the parsed JSON value, or the text of a
 * manifest file. Problem paths start at `root` (default `manifest`).
 */
export function parseManifest(json: unknown, root = 'manifest'): ParseManifestResult {
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (error) {
      return { ok: false, problems: [problem(root, 'malformed_json', `not valid JSON: ${(error as Error).message}`)] };
    }
  }
  const result = manifestSchema.safeParse(value);
  return result.success ? { ok: true, manifest: result.data } : { ok: false, problems: issuesToProblems(result.error.issues, root) };
}

/**
 * Every top-level field that is valid on its own, parsed with its defaults. Lets bundle checks
 * that depend on one field (entry, sdk, evolve...) still run when another field is broken.
 */
export function salvageManifest(json: unknown): Partial<Manifest> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return {};
  const raw = json as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(manifestSchema.shape)) {
    const result = schema.safeParse(raw[key]);
    if (result.success) out[key] = result.data;
  }
  return out as Partial<Manifest>;
}
