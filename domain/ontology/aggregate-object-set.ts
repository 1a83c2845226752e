import type { z } from 'zod';
import type { AggregateObjectSetRequest, AggregateObjectsResponse } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { aggregate } from './aggregate-objects.ts';
import { openOntology } from './data-access.ts';
import { compileObjectSet } from './object-sets.ts';

/** `POST .../objectSets/aggregate`: metrics over the set's objects, grouped as aggregateObjects. */
export async function aggregateObjectSet(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  ontology: string,
  request: z.output<typeof AggregateObjectSetRequest>,
): Promise<AggregateObjectsResponse> {
  const open = await openOntology(deps, principal, ontology);
  const set = await compileObjectSet(deps.db, open, request.objectSet);
  return aggregate(deps.db, open.ontology, set.type, { aggregation: request.aggregation, groupBy: request.groupBy }, set.predicate);
}
