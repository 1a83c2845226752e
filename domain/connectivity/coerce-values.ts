import type { DataType } from '../../schemas/ontology.ts';

// Source values as the object type's properties take them: drivers and files give text for
// numerics (PostgreSQL numeric and bigint, every CSV field) and Date objects for timestamps. What
// cannot be converted is passed on as it is, and the one writer refuses it with its path.

const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

export function coerceValue(dataType: DataType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (dataType.type) {
    case 'string':
      if (typeof value === 'string') return value;
      if (value instanceof Date) return value.toISOString();
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
    case 'integer':
    case 'long':
    case 'double':
      if (typeof value === 'bigint') return Number(value);
      return typeof value === 'string' && NUMBER.test(value.trim()) ? Number(value) : value;
    case 'boolean':
      if (typeof value !== 'string') return value;
      return /^(true|t|1|yes)$/i.test(value) ? true : /^(false|f|0|no)$/i.test(value) ? false : value;
    case 'date':
      if (value instanceof Date) return value.toISOString().slice(0, 10);
      return value;
    case 'timestamp':
      if (value instanceof Date) return value.toISOString();
      // PostgreSQL's text form (`2026-11-22 10:00:00+00`) as RFC 3339.
      if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2} \d/.test(value)) return value.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00');
      return value;
    case 'array':
      return Array.isArray(value) ? value.map((v) => coerceValue(dataType.subType, v)) : value;
    case 'struct':
      return value;
  }
}
