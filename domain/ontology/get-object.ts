import { sql } from 'kysely';
import type { OntologyObject } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { type OpenOntology, openOntology, readableType } from './data-access.ts';
import { selectObjects, toApiObject } from './objects.ts';
import { parseKey } from './property-values.ts';

/** One object of a readable type by its primary key as text (a path segment); `select` limits the properties. */
export async function findObject(db: DbOrTrx, open: OpenOntology, apiName: string, keyText: string, select?: readonly string[]) {
  const type = readableType(open, apiName);
  const key = parseKey(type.properties[type.primaryKey]!.dataType, keyText);
  const row =
    key === undefined
      ? undefined
      : await selectObjects(db, open.ontology, type, select)
          .where(sql.ref(`o.${type.primaryKey}`), '=', key)
          .executeTakeFirst();
  if (!row)
    throw new DomainError('object_not_found', `No ${apiName} ${keyText}.`, { details: { objectType: apiName, primaryKey: keyText } });
  return toApiObject(type, row);
}

export async function getObject(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: { ontology: string; objectType: string; primaryKey: string; select?: readonly string[] | undefined },
): Promise<OntologyObject> {
  return findObject(deps.db, await openOntology(deps, principal, input.ontology), input.objectType, input.primaryKey, input.select);
}
