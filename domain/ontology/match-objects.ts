import { sql } from 'kysely';
import type { OntologyObject, WhereClause } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import { objectTable } from './object-tables.ts';
import type { ObjectTypeRecord, OntologyRecord } from './repository.ts';
import { compileWhere } from './where.ts';

/**
 * Whether each object (as the API shows it: a change's state before or after its transaction)
 * matches the where clause, judged by the very compiler searches use, over rows of the type's
 * table built from the objects: one statement for all of them. An invalid clause is query_invalid
 * even with no objects (a definition is checked so).
 */
export async function matchObjects(
  db: DbOrTrx,
  ontology: Pick<OntologyRecord, 'schemaName'>,
  type: ObjectTypeRecord,
  where: WhereClause | undefined,
  objects: readonly OntologyObject[],
): Promise<boolean[]> {
  const predicate = compileWhere(type, where);
  if (objects.length === 0) return [];
  const rows = await sql<{ i: string; m: boolean | null }>`
    SELECT x.i, (${predicate}) IS TRUE AS m
    FROM jsonb_array_elements(${JSON.stringify(objects)}::jsonb) WITH ORDINALITY AS x(v, i),
      LATERAL jsonb_populate_record(NULL::${objectTable(ontology, type)}, x.v) AS o
    ORDER BY x.i`.execute(db);
  return rows.rows.map((r) => r.m === true);
}
