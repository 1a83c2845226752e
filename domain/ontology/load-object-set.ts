import type { z } from 'zod';
import type { LoadObjectSetRequest, ObjectPage } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { canonicalJson } from './canonical-json.ts';
import { openOntology } from './data-access.ts';
import { compileObjectSet } from './object-sets.ts';
import { objectPage } from './search-objects.ts';

/** `POST .../objectSets/loadObjects`: a page of the set's objects (ordered, selected, paged as search). */
export async function loadObjectSet(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  ontology: string,
  request: z.output<typeof LoadObjectSetRequest>,
): Promise<ObjectPage> {
  const open = await openOntology(deps, principal, ontology);
  const { objectSet, ...page } = request;
  const set = await compileObjectSet(deps.db, open, objectSet);
  return objectPage(deps.db, open.ontology, set.type, page, { predicate: set.predicate, key: canonicalJson(objectSet) });
}
