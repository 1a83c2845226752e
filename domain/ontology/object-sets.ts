import { type Expression, type SqlBool, sql } from 'kysely';
import { OBJECT_SET_RID_PREFIX, type ObjectSet } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { type OpenOntology, readableType } from './data-access.ts';
import { linkedPredicate, linkFrom } from './list-linked-objects.ts';
import { readSource } from './object-security.ts';
import { OBJECT_RID_PREFIX } from './objects.ts';
import { parseKey } from './property-values.ts';
import type { ObjectTypeRecord } from './repository.ts';
import { compileWhere, queryInvalid } from './where.ts';

// Object sets (Foundry ObjectSet) compile to one predicate over their object type's table: set
// operations are AND/OR/NOT of predicates, searchAround a semi-join through object_links. The
// schema bounds their depth and size; every type and link they name must be readable.

export interface CompiledObjectSet {
  type: ObjectTypeRecord;
  /** Over the alias the set was compiled for. */
  predicate: Expression<SqlBool>;
}

/** Temporary object sets are kept this long (issue 15). */
export const TEMPORARY_SET_HOURS = 24;

/** A temporary set's stored definition (not expired, of this ontology), or object_set_not_found. */
export async function findTemporarySet(db: DbOrTrx, open: OpenOntology, rid: string): Promise<ObjectSet> {
  const id = rid.startsWith(OBJECT_SET_RID_PREFIX) ? rid.slice(OBJECT_SET_RID_PREFIX.length) : undefined;
  const row =
    id === undefined
      ? undefined
      : await db
          .selectFrom('temporary_object_sets')
          .select('object_set')
          .where('id', '=', id)
          .where('ontology_id', '=', open.ontology.id)
          .where('expires_at', '>', sql<Date>`now()`)
          .executeTakeFirst();
  if (!row) throw new DomainError('object_set_not_found', undefined, { details: { objectSetRid: rid } });
  return row.object_set as ObjectSet;
}

/** The set with every reference replaced by the set it names (what a temporary set stores). */
export async function inlineReferences(db: DbOrTrx, open: OpenOntology, set: ObjectSet): Promise<ObjectSet> {
  switch (set.type) {
    case 'reference':
      return findTemporarySet(db, open, set.reference);
    case 'filter':
    case 'searchAround':
      return { ...set, objectSet: await inlineReferences(db, open, set.objectSet) };
    case 'union':
    case 'intersect':
    case 'subtract':
      return { ...set, objectSets: await Promise.all(set.objectSets.map((s) => inlineReferences(db, open, s))) };
    default:
      return set;
  }
}

function staticSet(open: OpenOntology, rids: readonly string[], alias: string): CompiledObjectSet {
  if (rids.length === 0) throw queryInvalid('ObjectSetTypeUnknown', 'A static object set needs at least one object.');
  let type: ObjectTypeRecord | undefined;
  const keys = rids.map((rid) => {
    const [typeId, encoded] = rid.startsWith(OBJECT_RID_PREFIX) ? rid.slice(OBJECT_RID_PREFIX.length).split('.') : [];
    const found = open.types.find((t) => t.id === typeId);
    if (!found || encoded === undefined) throw queryInvalid('ObjectNotFound', `No object ${rid}.`, { objectRid: rid });
    readableType(open, found.apiName);
    if (type && type !== found) throw queryInvalid('ObjectSetTypeMismatch', 'Every object of a static set has one type.');
    type = found;
    const key = parseKey(found.properties[found.primaryKey]!.dataType, Buffer.from(encoded, 'base64url').toString('utf8'));
    if (key === undefined) throw queryInvalid('ObjectNotFound', `No object ${rid}.`, { objectRid: rid });
    return key;
  });
  return { type: type!, predicate: sql<SqlBool>`${sql.ref(`${alias}.${type!.primaryKey}`)} IN (${sql.join(keys)})` };
}

export async function compileObjectSet(
  db: DbOrTrx,
  open: OpenOntology,
  set: ObjectSet,
  alias = 'o',
  depth = 0,
): Promise<CompiledObjectSet> {
  switch (set.type) {
    case 'base':
      return { type: readableType(open, set.objectType), predicate: sql<SqlBool>`true` };
    case 'static':
      return staticSet(open, set.objects, alias);
    case 'reference':
      return compileObjectSet(db, open, await findTemporarySet(db, open, set.reference), alias, depth);
    case 'filter': {
      const inner = await compileObjectSet(db, open, set.objectSet, alias, depth);
      return { type: inner.type, predicate: sql<SqlBool>`(${inner.predicate} AND ${compileWhere(inner.type, set.where, alias)})` };
    }
    case 'union':
    case 'intersect':
    case 'subtract': {
      const parts = await Promise.all(set.objectSets.map((s) => compileObjectSet(db, open, s, alias, depth)));
      const type = parts[0]!.type;
      if (parts.some((p) => p.type !== type))
        throw queryInvalid('ObjectSetTypeMismatch', `${set.type} takes object sets of one object type.`);
      const [first, ...rest] = parts.map((p) => p.predicate);
      const predicate =
        set.type === 'union'
          ? sql<SqlBool>`(${sql.join(
              parts.map((p) => p.predicate),
              sql` OR `,
            )})`
          : set.type === 'intersect'
            ? sql<SqlBool>`(${sql.join(
                parts.map((p) => p.predicate),
                sql` AND `,
              )})`
            : rest.length === 0
              ? first!
              : sql<SqlBool>`(${first} AND (${sql.join(rest, sql` OR `)}) IS NOT TRUE)`;
      return { type, predicate };
    }
    case 'searchAround': {
      // The inner set gets an alias of its own: it is a subquery over its own table.
      const innerAlias = `s${depth + 1}`;
      const inner = await compileObjectSet(db, open, set.objectSet, innerAlias, depth + 1);
      const { side, other } = await linkFrom(db, open, inner.type.apiName, set.link);
      const keys = sql`SELECT (${sql.ref(`${innerAlias}.${inner.type.primaryKey}`)})::text FROM ${readSource(open.ontology, inner.type)} AS ${sql.id(innerAlias)} WHERE ${inner.predicate}`;
      return { type: other, predicate: linkedPredicate(side, other, keys, alias) };
    }
  }
}
