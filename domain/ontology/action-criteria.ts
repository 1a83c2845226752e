import type { OntologyObject } from '../../schemas/ontology.ts';
import type { Criterion } from '../../schemas/ontology-actions.ts';

// Submission criteria: a small declarative form evaluated over the parameters' values and the
// objects objectReference parameters name (as locked by the run). No code, linear in its size.

export interface CriterionInput {
  values: Readonly<Record<string, unknown>>;
  objects: ReadonlyMap<string, OntologyObject | null>;
}

const compare = (a: unknown, b: unknown): number | undefined => {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  // Dates and timestamps compare as ISO text, as they are written.
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
};

export function holds(c: Criterion, input: CriterionInput): boolean {
  if ('all' in c) return c.all.every((x) => holds(x, input));
  if ('any' in c) return c.any.some((x) => holds(x, input));
  if ('not' in c) return !holds(c.not, input);
  const actual = c.property === undefined ? input.values[c.parameter] : input.objects.get(c.parameter)?.[c.property];
  const value = actual ?? null;
  switch (c.op) {
    case 'isNull':
      return (value === null) === c.value;
    case 'eq':
      return value !== null && value === c.value;
    case 'ne':
      return value !== c.value;
    case 'in':
      return value !== null && (c.value as unknown[]).includes(value);
    case 'startsWith':
      return typeof value === 'string' && typeof c.value === 'string' && value.startsWith(c.value);
    case 'contains':
      return Array.isArray(value)
        ? value.includes(c.value)
        : typeof value === 'string' && typeof c.value === 'string' && value.includes(c.value);
    default: {
      const d = compare(value, c.value);
      if (d === undefined) return false;
      return c.op === 'gt' ? d > 0 : c.op === 'gte' ? d >= 0 : c.op === 'lt' ? d < 0 : d <= 0;
    }
  }
}
