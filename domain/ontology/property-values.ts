import { AttachmentValue, type DataType, MediaReference } from '../../schemas/ontology.ts';

// The one check of a property value against its type: object edits and where-clause values use it.

const INT32 = 2 ** 31;
const MAX_STRING = 65_536;
const MAX_ARRAY = 10_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// RFC 3339 with a zone, as Foundry sends timestamps.
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function validDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** Why a (non-null) value does not fit the type, or null when it does. */
export function valueProblem(dataType: DataType, value: unknown): string | null {
  switch (dataType.type) {
    case 'string':
      return typeof value === 'string' && value.length <= MAX_STRING ? null : `must be a string of at most ${MAX_STRING} characters`;
    case 'integer':
      return Number.isInteger(value) && Math.abs(value as number) < INT32 ? null : 'must be a 32-bit integer';
    case 'long':
      return Number.isSafeInteger(value) ? null : 'must be an integer within ±2^53';
    case 'double':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a finite number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && validDate(value) ? null : 'must be a date YYYY-MM-DD';
    case 'timestamp':
      return typeof value === 'string' && TIMESTAMP.test(value) && validDate(value.slice(0, 10)) && !Number.isNaN(Date.parse(value))
        ? null
        : 'must be an RFC 3339 timestamp with a zone, e.g. 2026-11-22T10:00:00Z';
    case 'array': {
      if (!Array.isArray(value) || value.length > MAX_ARRAY) return `must be an array of at most ${MAX_ARRAY} items`;
      for (const [i, item] of value.entries()) {
        const problem = item === null ? 'must not be null' : valueProblem(dataType.subType, item);
        if (problem) return `item ${i} ${problem}`;
      }
      return null;
    }
    case 'mediaReference':
      return MediaReference.safeParse(value).success
        ? null
        : 'must be a media reference {mimeType, reference: {type: mediaSetViewItem, mediaSetViewItem}}';
    case 'attachment':
      return AttachmentValue.safeParse(value).success ? null : 'must be an attachment {rid: ri.attachments.main.attachment.<uuid>}';
    case 'struct': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object';
      const fields = new Map(dataType.structFieldTypes.map((f) => [f.apiName, f.dataType]));
      for (const [key, field] of Object.entries(value)) {
        const type = fields.get(key);
        if (!type) return `has no field ${JSON.stringify(key)}`;
        const problem = field === null ? null : valueProblem(type, field);
        if (problem) return `field ${key} ${problem}`;
      }
      return null;
    }
  }
}

/** A primary key given as text (a path segment) as the value of its property's type, or undefined when it cannot be one. */
export function parseKey(dataType: DataType, text: string): string | number | undefined {
  if (dataType.type === 'string') return text;
  if (!/^-?\d{1,16}$/.test(text)) return undefined;
  const n = Number(text);
  return valueProblem(dataType, n) === null ? n : undefined;
}
