import { formatPath, type Problem, problem, quoted } from '../../schemas/problems.ts';
import { STREAM_LIMITS, type StreamField, type StreamFieldType } from '../../schemas/streams.ts';
import { ownValue } from '../own-keys.ts';

// A pushed record against its stream's schema: only the stream's fields, each value of its type,
// required ones present. Linear in the records' size; problems are named by path
// (`records[3].amount`) and the caller reports the first ones (reportedProblems).

const INT32 = 2 ** 31;
const MAX_KEY_SHOWN = 200;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** A real calendar day (`2026-02-30` is not). */
function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return day.toISOString().startsWith(value);
}

/** Why `value` is not of `type`, or undefined when it is. */
function typeProblem(type: StreamFieldType, value: unknown): string | undefined {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') return 'must be a string';
      return value.length > STREAM_LIMITS.stringChars ? `must be at most ${STREAM_LIMITS.stringChars} characters` : undefined;
    case 'integer':
      return Number.isInteger(value) && Math.abs(value as number) < INT32 ? undefined : 'must be a 32-bit integer';
    case 'long':
      return Number.isSafeInteger(value) ? undefined : 'must be an integer between -(2^53-1) and 2^53-1';
    case 'double':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'date':
      return typeof value === 'string' && isDate(value) ? undefined : 'must be a date, YYYY-MM-DD';
    case 'timestamp':
      return typeof value === 'string' && TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : 'must be an RFC 3339 timestamp with an offset or Z, e.g. 2026-11-28T10:00:00Z';
  }
}

/** Every problem of the records (all of them: the caller decides how many to name). */
export function recordProblems(fields: readonly StreamField[], records: readonly Readonly<Record<string, unknown>>[]): Problem[] {
  const byName = new Map(fields.map((f) => [f.name, f]));
  const problems: Problem[] = [];
  for (const [index, record] of records.entries()) {
    for (const key of Object.keys(record)) {
      if (byName.has(key)) continue;
      // A long key is cut in the answer (the whole body may be one key of a megabyte).
      const shown = key.length > MAX_KEY_SHOWN ? `${key.slice(0, MAX_KEY_SHOWN)}…` : key;
      problems.push(problem(formatPath('records', [index, shown]), 'unrecognized_keys', `Unknown field ${quoted(key)}`));
    }
    for (const field of fields) {
      const value = ownValue(record, field.name);
      const path = formatPath('records', [index, field.name]);
      if (value === undefined || value === null) {
        if (field.required) problems.push(problem(path, 'required', `${field.name} is required`));
        continue;
      }
      const wrong = typeProblem(field.type, value);
      if (wrong) problems.push(problem(path, 'invalid_type', `${field.name} ${wrong}`));
    }
  }
  return problems;
}
