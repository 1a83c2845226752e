import { type Expression, type SqlBool, sql } from 'kysely';
import type { OntologyObject } from '../../../schemas/ontology.ts';
import type { SubscribableObjectSet } from '../../../schemas/ontology-subscriptions.ts';
import type { DbOrTrx } from '../../db/index.ts';
import { type OpenOntology, readableType } from '../data-access.ts';
import { gatesOf, policedRows } from '../object-security.ts';
import { objectTable } from '../object-tables.ts';
import type { ObjectTypeRecord, OntologyRecord } from '../repository.ts';
import { compileWhere, queryInvalid } from '../where.ts';

// Whether one object is in a subscribed object set, decided from the object alone: the set becomes
// one SQL condition over the object's row (the where compiler of search, so a subscription and a
// search agree on every value), and changed objects are judged in one statement by reading their
// states as rows of their type's table. Our own file until the object-set evaluation of the read
// side covers membership of a single object.

export interface SetMembership {
  /** The one object type of the set's objects. */
  type: ObjectTypeRecord;
  /** True for an object (the row `o` of its type) in the set. */
  condition: Expression<SqlBool>;
}

/**
 * The set's object type and membership condition, for a caller who may read every type it names
 * (any other is object_type_not_found); a set mixing types, or a malformed where, is query_invalid.
 */
export function compileMembership(open: OpenOntology, set: SubscribableObjectSet): SetMembership {
  switch (set.type) {
    case 'base':
      return { type: readableType(open, set.objectType), condition: sql<SqlBool>`true` };
    case 'filter': {
      const inner = compileMembership(open, set.objectSet);
      return { type: inner.type, condition: sql<SqlBool>`(${inner.condition} AND ${compileWhere(inner.type, set.where)})` };
    }
    default: {
      const parts = set.objectSets.map((s) => compileMembership(open, s));
      const type = parts[0]!.type;
      const other = parts.find((p) => p.type.id !== type.id);
      if (other) {
        throw queryInvalid(
          'ObjectSetTypesDiffer',
          `A subscribed ${set.type} holds one object type; got ${type.apiName} and ${other.type.apiName}.`,
        );
      }
      const conditions = parts.map((p) => p.condition);
      const condition =
        set.type === 'union'
          ? sql<SqlBool>`(${sql.join(conditions, sql` OR `)})`
          : set.type === 'intersect'
            ? sql<SqlBool>`(${sql.join(conditions, sql` AND `)})`
            : conditions.length === 1
              ? conditions[0]!
              : sql<SqlBool>`(${conditions[0]!} AND NOT (${sql.join(conditions.slice(1), sql` OR `)}))`;
      return { type, condition };
    }
  }
}

/**
 * For each condition, whether each state is in its set (null states are in none). One statement:
 * each state becomes a row of the type's table (`jsonb_populate_record`: the API's JSON values
 * read back by the columns' own types) and every condition is one column of the answer. The rows
 * pass the caller's security policies first, as a search's do: a state the caller may not see is
 * in no set, and a condition on a nulled property sees null.
 */
export async function judgeStates(
  db: DbOrTrx,
  ontology: OntologyRecord,
  type: ObjectTypeRecord,
  conditions: readonly Expression<SqlBool>[],
  states: readonly (OntologyObject | null)[],
): Promise<boolean[][]> {
  const answer = conditions.map(() => states.map(() => false));
  const present = states.flatMap((s, i) => (s ? [{ i, s }] : []));
  if (present.length === 0 || conditions.length === 0) return answer;
  const columns = conditions.map((c, k) => sql`coalesce(${c}, false) AS ${sql.id(`m${k}`)}`);
  const rows = await sql<Record<string, unknown>>`
    SELECT e.i AS __i, ${sql.join(columns)}
    FROM jsonb_array_elements(${JSON.stringify(present.map((p) => p.s))}::jsonb) WITH ORDINALITY AS e(doc, i)
    CROSS JOIN LATERAL ${stateRows(ontology, type)} AS o`.execute(db);
  for (const row of rows.rows) {
    const index = present[Number(row.__i) - 1]!.i;
    conditions.forEach((_, k) => {
      answer[k]![index] = row[`m${k}`] === true;
    });
  }
  return answer;
}

/** The `e.doc` state as a row of the type, through the caller's gates when the type has a policy. */
function stateRows(ontology: OntologyRecord, type: ObjectTypeRecord) {
  const row = sql`jsonb_populate_record(NULL::${objectTable(ontology, type)}, e.doc)`;
  const gates = gatesOf(type);
  return gates ? policedRows(type, gates, sql`${row} AS t`) : row;
}
