import type { z } from 'zod';

export interface Problem {
  path: string;
  message: string;
}

/** `['files', 0, 'path']` -> `files[0].path`; the one path format of every problem list. */
export function formatPath(segments: readonly PropertyKey[], root?: string): string {
  let out = root ?? '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? String(s) : `.${String(s)}`;
  }
  return out;
}

/** Every zod issue as a problem; an unknown field becomes one problem at its own path. */
export function problemsFromZod(error: z.ZodError, root?: string): Problem[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: formatPath([...issue.path, key], root), message: 'unknown field' }))
      : [{ path: formatPath(issue.path, root), message: issue.message }],
  );
}
