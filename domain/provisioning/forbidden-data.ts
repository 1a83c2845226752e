import { formatPath, type Problem, problem } from '../../schemas/problems.ts';
import { DomainError } from '../errors.ts';

// Spec F: the control plane stores metadata only. This guard looks at every key and string of a
// value (a request, what a cloud provider answered, an error text) and names what looks like a
// cloud credential, a private key, a token or key, or a connection string. Every pattern is a
// plain scan without nested repetition, and strings are bounded, so the check is linear.

const MAX_STRING = 4096;

const VALUE_PATTERNS: readonly { what: string; test: (s: string) => boolean }[] = [
  { what: 'a private key', test: (s) => /-----BEGIN [A-Z ]{0,40}PRIVATE KEY/.test(s) },
  { what: 'a cloud access key id', test: (s) => /\b(?:AKIA|ASIA|AIDA|AROA|AGPA)[0-9A-Z]{16}\b/.test(s) },
  { what: 'a cloud secret access key', test: hasSecretAccessKey },
  { what: 'an svc key or ticket', test: (s) => /\bsvc-(?:dk|at)-[A-Za-z0-9]/.test(s) },
  { what: 'a bearer token', test: (s) => /\bbearer\s{1,10}[A-Za-z0-9._~+/=-]{8}/i.test(s) },
  { what: 'a JSON web token', test: (s) => /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\./.test(s) },
  {
    what: 'a model provider or platform token',
    test: (s) => /\b(?:sk-[A-Za-z0-9_-]{16}|gh[pousr]_[A-Za-z0-9]{20}|xox[abprs]-[A-Za-z0-9-]{10}|AIza[0-9A-Za-z_-]{35})/.test(s),
  },
  {
    what: 'a connection string',
    test: (s) =>
      /\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|jdbc:[a-z]{1,20}):\/\//i.test(s) ||
      // User info `://user:pass@`: the user part stops at its first colon, so it matches one way only.
      /:\/\/[^\s/@:]*:[^\s/@]*@/.test(s) ||
      /\b(?:password|pwd|AccountKey|SharedAccessKey|SharedAccessSignature)\s{0,5}=/i.test(s),
  },
];

/** A 40-character run of the secret-key alphabet mixing upper case, lower case and digits (not a path). */
function hasSecretAccessKey(s: string): boolean {
  for (const m of s.matchAll(/[A-Za-z0-9/+]{40,}/g)) {
    const run = m[0];
    if (run.length === 40 && !run.startsWith('/') && /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run)) return true;
  }
  return false;
}

const FORBIDDEN_KEY =
  /(?:password|passwd|secret|token|credential|private_?key|privatekey|access_?key|accesskey|api_?key|apikey|connection_?string|connectionstring|dsn)/i;

/** Every forbidden-looking key or string in `value`, each with its path under `root`. */
export function findForbiddenData(value: unknown, root: string): Problem[] {
  const problems: Problem[] = [];
  const visit = (v: unknown, segments: PropertyKey[]) => {
    if (typeof v === 'string') {
      const path = formatPath(root, segments);
      if (v.length > MAX_STRING) problems.push(problem(path, 'forbidden_data', `longer than ${MAX_STRING} characters: not metadata`));
      else {
        const hit = VALUE_PATTERNS.find((p) => p.test(v));
        if (hit) problems.push(problem(path, 'forbidden_data', `looks like ${hit.what}: the control plane stores metadata only`));
      }
    } else if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) visit(item, [...segments, i]);
    } else if (v && typeof v === 'object') {
      for (const [key, item] of Object.entries(v)) {
        if (FORBIDDEN_KEY.test(key.replace(/[-\s]/g, '_'))) {
          problems.push(problem(formatPath(root, [...segments, key]), 'forbidden_data', 'credentials, keys and tokens are never accepted'));
        } else visit(item, [...segments, key]);
      }
    }
  };
  visit(value, []);
  return problems;
}

/** Throws invalid_payload naming each forbidden value; `root` names where the value came from. */
export function assertMetadataOnly(value: unknown, root: string): void {
  const problems = findForbiddenData(value, root);
  if (problems.length) {
    throw new DomainError('invalid_payload', 'Forbidden data: the control plane stores metadata only.', { details: { problems } });
  }
}

/** An error text fit to store: anything forbidden-looking is replaced, never kept. */
export function redactForbidden(text: string): string {
  const cut = text.slice(0, 2000);
  return findForbiddenData(cut, 'error').length
    ? '(error text withheld: it looked like it held a credential, key, token or connection string)'
    : cut;
}
