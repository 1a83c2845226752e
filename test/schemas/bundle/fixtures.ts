import { expect } from 'vitest';
import { analyzeFiles } from '../../../schemas/bundle/analyze.ts';
import { contentPolicyWarnings } from '../../../schemas/bundle/csp-warnings.ts';
import type { BundleFileInput } from '../../../schemas/bundle/request.ts';
import { type InvalidBundle, type ValidBundle, validateBundle } from '../../../schemas/bundle/validate-bundle.ts';
import type { Problem } from '../../../schemas/problems.ts';
import { baseManifest } from '../manifest-helpers.ts';

export { baseManifest };

export const INDEX_HTML = '<!doctype html>\n<html><head><title>Sales board</title></head><body><main id="app"></main></body></html>\n';

export function textFile(path: string, content: string): BundleFileInput {
  return { path, encoding: 'utf8', content };
}

export function base64File(path: string, content: string | Uint8Array): BundleFileInput {
  return { path, encoding: 'base64', content: Buffer.from(content).toString('base64') };
}

export function skillText(name: string, description = 'Answers questions about sales', body = '# Sales\n\nUse the board.\n'): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

/** Validates `files` (index.html added unless given) with the base manifest plus overrides. */
export function validate(files: BundleFileInput[], manifest: Record<string, unknown> = {}): ValidBundle | InvalidBundle {
  const withIndex = files.some((f) => f.path === 'index.html') ? files : [textFile('index.html', INDEX_HTML), ...files];
  return validateBundle({ manifest: baseManifest(manifest), files: withIndex });
}

export function expectValid(result: ValidBundle | InvalidBundle): ValidBundle {
  if (!result.ok) throw new Error(`expected a valid bundle, got ${JSON.stringify(result.problems, null, 1)}`);
  return result;
}

export function problemsOf(result: ValidBundle | InvalidBundle): Problem[] {
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.problems;
}

export function expectProblem(result: ValidBundle | InvalidBundle, path: string, code: string): Problem {
  const problems = problemsOf(result);
  const found = problems.find((p) => p.path === path && p.code === code);
  if (!found) throw new Error(`expected problem ${code} at ${path}, got ${JSON.stringify(problems, null, 1)}`);
  return found;
}

/** One file's analysis and the warnings of the page's Content-Security-Policy (pages on a host of their own). */
export function policyWarnings(path: string, text: string) {
  const hosting = { sdkBase: 'https://svc.test/developer/sdk/v1/', pageOrigins: ['https://apps.test'] };
  return contentPolicyWarnings(analyzeFiles([{ index: 0, path, bytes: Buffer.alloc(0), text }]), [], hosting);
}
