import { formatPath, type Problem, problem, quoted } from '../../schemas/problems.ts';
import type { StreamField } from '../../schemas/streams.ts';
import { valueProblem } from '../ontology/index.ts';
import { ownValue } from '../own-keys.ts';

// A pushed record against its stream's schema: only the stream's fields, each value of its type
// (the data layer's own check of a property value, so a record that passes fits every property
// its binding allows), required ones present. Linear in the records' size; problems are named by path
// (`records[3].amount`) and the caller reports the first ones (reportedProblems).

const MAX_KEY_SHOWN = 200;

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
      const wrong = valueProblem({ type: field.type }, value);
      if (wrong) problems.push(problem(path, 'invalid_type', `${field.name} ${wrong}`));
    }
  }
  return problems;
}
