import type { ObjectPage } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { openOntology, readableType } from './data-access.ts';
import { objectPage } from './search-objects.ts';
import { parseOrderByParam } from './where.ts';

/** `GET .../objects/{type}`: a page of all objects, `orderBy` as `properties.x:asc` (comma-separated). */
export async function listObjects(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: {
    ontology: string;
    objectType: string;
    pageSize?: number | undefined;
    pageToken?: string | undefined;
    select?: string[] | undefined;
    orderBy?: string | undefined;
  },
): Promise<ObjectPage> {
  const open = await openOntology(deps, principal, input.ontology);
  const type = readableType(open, input.objectType);
  return objectPage(deps.db, open.ontology, type, {
    ...(input.pageSize === undefined ? {} : { pageSize: input.pageSize }),
    ...(input.pageToken === undefined ? {} : { pageToken: input.pageToken }),
    ...(input.select === undefined ? {} : { select: input.select }),
    ...(input.orderBy === undefined ? {} : { orderBy: { fields: parseOrderByParam(input.orderBy) } }),
  });
}
