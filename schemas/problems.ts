// One problem format for manifest and bundle validation. A problem's `path` names the
// offending value inside the request body: the root (`manifest`, `files`), then `.key` for
// identifier-like keys, `[n]` for array indices and `["key"]` (JSON-quoted) for any other key,
// e.g. `manifest.exports[0].where.status.gt`, `manifest.limits["x y"]`, `files[3].path`.
import type { z } from 'zod';

export type Problem = { path: string; code: string; message: string };

type Issue = z.core.$ZodIssue;
type Segment = PropertyKey;

const IDENTIFIER_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function formatPath(root: string, segments: readonly Segment[] = []): string {
  let out = root;
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else {
      const key = String(segment);
      out += IDENTIFIER_KEY.test(key) ? (out === '' ? key : `.${key}`) : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

export function problem(path: string, code: string, message: string): Problem {
  return { path, code, message };
}

const MAX_QUOTED_CHARACTERS = 200;

/** `text` JSON-quoted for a message, cut to 200 characters: uploaded names must not make answers large. */
export function quoted(text: string): string {
  return JSON.stringify(text.length > MAX_QUOTED_CHARACTERS ? `${text.slice(0, MAX_QUOTED_CHARACTERS)}…` : text);
}

// A union branch that failed only because the value has another type (at the union itself)
// tells the author nothing; the branch that got further explains the real mistake.
function isTypeMismatch(issues: readonly Issue[]): boolean {
  return issues.every(
    (issue) =>
      issue.path.length === 0 &&
      (issue.code === 'invalid_type' || (issue.code === 'invalid_union' && issue.errors.length > 0 && issue.errors.every(isTypeMismatch))),
  );
}

function expectedTypes(issues: readonly Issue[]): string[] {
  return issues.flatMap((issue) =>
    issue.code === 'invalid_type' ? [issue.expected] : issue.code === 'invalid_union' ? issue.errors.flatMap(expectedTypes) : [],
  );
}

function listWords(words: readonly string[]): string {
  const unique = [...new Set(words)];
  return unique.length <= 1 ? (unique[0] ?? 'another value') : `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}`;
}

function issueCode(issue: Issue): string {
  const custom = issue.code === 'custom' ? issue.params?.['code'] : undefined;
  return typeof custom === 'string' ? custom : issue.code;
}

function flatten(issue: Issue, base: readonly Segment[], root: string, out: Problem[]): void {
  const segments = [...base, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const informative = issue.errors.filter((branch) => !isTypeMismatch(branch));
    const [only] = informative;
    if (informative.length === 1 && only) {
      for (const inner of only) flatten(inner, segments, root, out);
      return;
    }
    const expected = expectedTypes(issue.errors.flat());
    out.push(problem(formatPath(root, segments), 'invalid_type', `Invalid input: expected ${listWords(expected)}`));
    return;
  }
  if (issue.code === 'unrecognized_keys') {
    for (const key of issue.keys) out.push(problem(formatPath(root, [...segments, key]), 'unrecognized_keys', `Unknown key "${key}"`));
    return;
  }
  if (issue.code === 'invalid_key') {
    const key = segments.at(-1);
    const reason = issue.issues.map((inner) => inner.message).join('; ');
    out.push(problem(formatPath(root, segments), 'invalid_key', `Invalid key ${JSON.stringify(String(key))}: ${reason}`));
    return;
  }
  out.push(problem(formatPath(root, segments), issueCode(issue), issue.message));
}

export function issuesToProblems(issues: readonly Issue[], root: string): Problem[] {
  const out: Problem[] = [];
  for (const issue of issues) flatten(issue, [], root, out);
  return out;
}

/** An answer lists at most this many problems; `omittedProblems` counts the rest, so a huge bad input gets a small answer. */
export const MAX_REPORTED_PROBLEMS = 100;

export function reportedProblems(problems: readonly Problem[]): { problems: Problem[]; omittedProblems?: number } {
  const omitted = problems.length - MAX_REPORTED_PROBLEMS;
  return { problems: problems.slice(0, MAX_REPORTED_PROBLEMS), ...(omitted > 0 ? { omittedProblems: omitted } : {}) };
}
