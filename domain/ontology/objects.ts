import { sql } from 'kysely';
import type { OntologyObject } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { readSource } from './object-security.ts';
import { apiValue, REV, readColumn, untyped } from './object-tables.ts';
import type { ObjectTypeRecord, OntologyRecord } from './repository.ts';

// Reading objects out of their type's table, as the API shows them: the one place rows become
// Foundry-shaped objects (flat properties, nulls omitted, system fields).

export const OBJECT_RID_PREFIX = 'ri.ontology.svc.object.';

/** Stable: the type's id and the key's text (static object sets name objects by it). */
export const objectRid = (type: Pick<ObjectTypeRecord, 'id'>, primaryKey: unknown) =>
  `${OBJECT_RID_PREFIX}${type.id}.${Buffer.from(String(primaryKey)).toString('base64url')}`;

/**
 * SELECT of a type's objects aliased `o` (as the caller's security policies leave them), with the listed properties (all by default) and `__rev`;
 * callers add where, order and limit. The primary key is always read (it names the object).
 */
export function selectObjects(db: DbOrTrx, ontology: OntologyRecord, type: ObjectTypeRecord, select?: readonly string[]) {
  const unknown = select?.filter((n) => !type.properties[n]) ?? [];
  if (unknown.length > 0) {
    throw new DomainError('query_invalid', `${type.apiName} has no property ${unknown.join(', ')}.`, {
      details: { errorName: 'PropertiesNotFound', objectType: type.apiName, properties: unknown },
    });
  }
  const names = select ? [...new Set([type.primaryKey, ...select])] : Object.keys(type.properties);
  const columns = names.map((n) => readColumn('o', n, type.properties[n]!).as(n));
  return untyped(db)
    .selectFrom(readSource(ontology, type).as('o'))
    .select([...columns, sql.ref(`o.${REV}`).as(REV)]);
}

/** A RETURNING list giving what `selectObjects` reads (every property and `__rev`), for writes. */
export function returningObject(type: ObjectTypeRecord) {
  const columns = Object.entries(type.properties).map(([n, p]) => sql`${readColumn(null, n, p)} AS ${sql.id(n)}`);
  return sql.join([...columns, sql.id(REV)]);
}

export function toApiObject(type: ObjectTypeRecord, row: Record<string, unknown>): OntologyObject {
  const primaryKey = row[type.primaryKey] as string | number;
  const object: OntologyObject = {
    __apiName: type.apiName,
    __primaryKey: primaryKey,
    __rid: objectRid(type, primaryKey),
    __rev: Number(row[REV]),
  };
  for (const name of Object.keys(type.properties)) {
    const value = row[name];
    if (value !== null && value !== undefined) object[name] = apiValue(value);
  }
  return object;
}
