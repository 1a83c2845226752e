import type { ObjectSet } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { openOntology } from './data-access.ts';
import { compileObjectSet, findTemporarySet } from './object-sets.ts';

/** `GET .../objectSets/{objectSetRid}`: a temporary set's definition, for a caller who may read what it names. */
export async function getObjectSet(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  ontology: string,
  rid: string,
): Promise<{ objectSet: ObjectSet }> {
  const open = await openOntology(deps, principal, ontology);
  const objectSet = await findTemporarySet(deps.db, open, rid);
  await compileObjectSet(deps.db, open, objectSet);
  return { objectSet };
}
