import type { ObjectType } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { openOntology, readableType } from './data-access.ts';
import { objectTypeWire } from './list-object-types.ts';

export async function getObjectType(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  ontology: string,
  apiName: string,
): Promise<ObjectType> {
  return objectTypeWire(readableType(await openOntology(deps, principal, ontology), apiName));
}
