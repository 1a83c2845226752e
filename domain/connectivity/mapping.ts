import type { DataType } from '../../schemas/ontology.ts';
import { DomainError } from '../errors.ts';
import { ownValue } from '../own-keys.ts';
import { coerceValue } from './coerce-values.ts';

// The one mapping of a source onto an object type (property → source column or field), shared by
// syncs and stream bindings: checked when it is saved, applied to each row or record read. Names
// are looked up as own keys only (a property named `constructor` is not Object's).

/** What a mapping needs of an object type. */
export interface MappedType {
  apiName: string;
  primaryKey: string;
  properties: Record<string, { dataType: DataType }>;
}

/** A request problem at `path` (invalid_payload, with the path as every validation failure names it). */
export const invalidAt = (path: string, message: string) =>
  new DomainError('invalid_payload', message, { details: { problems: [{ path, code: 'invalid', message }] } });

/** Refuses a mapping that names a property the type lacks or leaves its primary key unmapped (`path`: the mapping in the request). */
export function checkMapping(type: MappedType, mapping: Readonly<Record<string, string>>, path = 'mapping'): void {
  for (const property of Object.keys(mapping)) {
    if (!ownValue(type.properties, property)) throw invalidAt(`${path}.${property}`, `${type.apiName} has no property ${property}.`);
  }
  if (!ownValue(mapping, type.primaryKey)) throw invalidAt(path, `Map the primary key ${type.primaryKey}.`);
}

/** A saved mapping's entries whose property the type still has (a property removed since is skipped). */
export const liveMapping = (type: MappedType, mapping: Readonly<Record<string, string>>): [string, string][] =>
  Object.entries(mapping).filter(([property]) => ownValue(type.properties, property));

/**
 * One object per primary key (the last row wins), each property from its column converted to the
 * property's type, with the position of the row it came from (so a refusal can name the input).
 */
export function mapRows(
  type: MappedType,
  mapping: readonly [string, string][],
  rows: readonly Readonly<Record<string, unknown>>[],
): Map<string, { object: Record<string, unknown>; row: number }> {
  // Each property's type looked up once, not once per value (a sync page has 5,000 rows).
  const columns = mapping.map(([property, column]) => ({ property, column, dataType: type.properties[property]!.dataType }));
  const byKey = new Map<string, { object: Record<string, unknown>; row: number }>();
  for (const [row, source] of rows.entries()) {
    const object = Object.fromEntries(columns.map((c) => [c.property, coerceValue(c.dataType, ownValue(source, c.column))]));
    byKey.set(String(object[type.primaryKey]), { object, row });
  }
  return byKey;
}
