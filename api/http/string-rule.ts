import { DomainError } from '../../domain/errors.ts';
import { formatPath, MAX_REPORTED_PROBLEMS, type Problem, problem } from '../../schemas/problems.ts';

// One rule for every string a request carries (path and query parameters, JSON bodies at any
// depth and their keys, CSV and form bodies): no U+0000 and no unpaired surrogate. PostgreSQL
// cannot store either in text or jsonb, and no name, id or value of the product needs them, so
// they are refused where input enters, with their path, instead of failing deep in a use case.
// Also no object key `__proto__`.

/** Where and why a string breaks the rule, or undefined when it keeps it. Linear in its length (native scans first). */
function flaw(text: string): string | undefined {
  if (text.isWellFormed()) {
    const nul = text.indexOf('\0');
    return nul === -1 ? undefined : `contains U+0000 (NUL) at character ${nul}, which no string may contain`;
  }
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0) return `contains U+0000 (NUL) at character ${i}, which no string may contain`;
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    else return `contains an unpaired surrogate at character ${i} (invalid UTF-16), which no string may contain`;
  }
  return undefined;
}

/**
 * No schema has a `__proto__` field: zod drops the key without a word, and copied by assignment
 * it would set an object's prototype. So it is refused like a broken string.
 */
const PROTO_KEY = 'is __proto__, which no object of a request may have';

/** A value still to look at, with the way back to its root (the path is built only for a problem). */
interface Pending {
  value: unknown;
  parent: Pending | undefined;
  segment: string | number | undefined;
  /** Why the key this value is under breaks the rule, reported when the walk reaches it (document order). */
  keyFlaw?: string | undefined;
}

function segmentsOf(node: Pending): (string | number)[] {
  const segments: (string | number)[] = [];
  for (let at: Pending | undefined = node; at?.segment !== undefined; at = at.parent) segments.push(at.segment);
  return segments.reverse();
}

/**
 * Every string of `value` and every key of its objects, walked with an explicit stack: the cost is
 * linear in the input and no nesting depth can overflow the call stack. Only the first
 * MAX_REPORTED_PROBLEMS problems are named (each path costs its depth); the rest are counted.
 */
export function stringProblems(value: unknown, root: string): { problems: Problem[]; omittedProblems: number } {
  const problems: Problem[] = [];
  let omittedProblems = 0;
  const report = (node: Pending, code: 'invalid_string' | 'invalid_key', message: string) => {
    if (problems.length === MAX_REPORTED_PROBLEMS) omittedProblems++;
    else problems.push(problem(formatPath(root, segmentsOf(node)), code, message));
  };
  const stack: Pending[] = [{ value, parent: undefined, segment: undefined }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.keyFlaw) report(node, 'invalid_key', `The key ${node.keyFlaw}`);
    const current = node.value;
    if (typeof current === 'string') {
      const why = flaw(current);
      if (why) report(node, 'invalid_string', `The value ${why}`);
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], parent: node, segment: i });
    } else if (typeof current === 'object' && current !== null) {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const keyFlaw = key === '__proto__' ? PROTO_KEY : flaw(key);
        stack.push({ value: (current as Record<string, unknown>)[key], parent: node, segment: key, keyFlaw });
      }
    }
  }
  return { problems, omittedProblems };
}

/** Longest string the quick check looks at: longer ones (bodies) go to the walk, which would scan them again. */
const QUICK_MAX_LENGTH = 256;

/**
 * True when the walk would find nothing, decided without its allocations (stack, nodes, problem
 * list): nothing at all, or a flat object of short clean strings under clean keys, as path and
 * query parameters are on every call. False means only "walk it".
 */
function plainlyClean(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) {
    const text: unknown = (value as Record<string, unknown>)[key];
    if (!Object.hasOwn(value, key) || typeof text !== 'string' || text.length > QUICK_MAX_LENGTH) return false;
    if (key === '__proto__' || flaw(key) !== undefined || flaw(text) !== undefined) return false;
  }
  return true;
}

/** Throws `invalid_payload` naming every string and key of `value` that breaks the rule. */
export function assertCleanStrings(value: unknown, root: string): void {
  if (plainlyClean(value)) return;
  const { problems, omittedProblems } = stringProblems(value, root);
  if (problems.length === 0) return;
  throw new DomainError('invalid_payload', 'Strings may not contain U+0000 or unpaired surrogates, and no key may be __proto__.', {
    details: { problems, ...(omittedProblems > 0 ? { omittedProblems } : {}) },
  });
}
