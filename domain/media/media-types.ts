import type { MediaSchema } from '../../schemas/media.ts';
import { DomainError } from '../errors.ts';

// Which MIME types a media set admits: its schema's, narrowed by its allowed list.

const DOCUMENT_TYPES = [
  'application/pdf',
  'application/rtf',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.*',
  'application/vnd.oasis.opendocument.*',
  'text/*',
];

const matches = (pattern: string, type: string) => (pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type);

/** Whether the schema admits a type (or, given `type/*`, every type it stands for that the schema admits at all). */
export function schemaAdmits(schema: MediaSchema, type: string): boolean {
  switch (schema) {
    case 'any':
      return true;
    case 'document':
      return DOCUMENT_TYPES.some((p) => matches(p, type) || (type.endsWith('*') && matches(type, p.replace(/\*$/, ''))));
    default:
      return type.startsWith(`${schema}/`);
  }
}

/** The Content-Type of an item, lowercase and without parameters; undefined when none or malformed. */
export function essenceOf(contentType: string | undefined): string | undefined {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase();
  return essence && /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(essence) && essence.length <= 127 ? essence : undefined;
}

/** Refuses an item type the set does not admit (invalid_media_item_schema), naming what it admits. */
export function assertAdmitted(set: { schema: MediaSchema; allowed_mime_types: string[] }, contentType: string | undefined): string {
  const type = essenceOf(contentType);
  const admitted =
    type !== undefined &&
    schemaAdmits(set.schema, type) &&
    (set.allowed_mime_types.length === 0 || set.allowed_mime_types.some((p) => matches(p, type)));
  if (!admitted) {
    throw new DomainError('invalid_media_item_schema', `This media set (${set.schema}) does not take items of type ${type ?? 'unknown'}.`, {
      details: { contentType: type ?? null, schema: set.schema, allowed: set.allowed_mime_types },
    });
  }
  return type;
}
