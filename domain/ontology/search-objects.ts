import { type Expression, type SqlBool, sql } from 'kysely';
import type { ObjectPage, SearchObjectsRequest } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { openOntology, readableType } from './data-access.ts';
import { readSource } from './object-security.ts';
import { untyped } from './object-tables.ts';
import { selectObjects, toApiObject } from './objects.ts';
import { issuePageToken, readPageToken } from './page-token.ts';
import type { ObjectTypeRecord, OntologyRecord } from './repository.ts';
import { compileOrderBy, compileWhere } from './where.ts';

export const DEFAULT_PAGE_SIZE = 1000;

/** A restriction of the objects beyond the request's where clause (an object set, a link), over alias `o`; `key` names it in page tokens. */
export interface Scope {
  predicate: Expression<SqlBool>;
  key: string;
}

/**
 * One page of a type's objects matching the request (list and search share it): ordered by the
 * fields asked for then the primary key, `pageSize` objects (1000 by default), a token for the
 * next page when there is one, and how many objects match in all.
 */
export async function objectPage(
  db: DbOrTrx,
  ontology: OntologyRecord,
  type: ObjectTypeRecord,
  request: SearchObjectsRequest,
  scope?: Scope,
): Promise<ObjectPage> {
  const { pageToken, pageSize = DEFAULT_PAGE_SIZE, ...query } = request;
  const digested = scope ? { ...query, scope: scope.key } : query;
  const offset = readPageToken(type, digested, pageToken);
  const where = scope ? sql<SqlBool>`${scope.predicate} AND ${compileWhere(type, query.where)}` : compileWhere(type, query.where);
  const order = compileOrderBy(type, query.orderBy?.fields);
  const rows = await selectObjects(db, ontology, type, query.select)
    .where(where)
    .orderBy(order)
    .limit(pageSize + 1)
    .offset(offset)
    .execute();
  const total = await untyped(db)
    .selectFrom(readSource(ontology, type).as('o'))
    .select(sql<number>`count(*)`.as('n'))
    .where(where)
    .executeTakeFirstOrThrow();
  const more = rows.length > pageSize;
  return {
    data: rows.slice(0, pageSize).map((r) => toApiObject(type, r)),
    ...(more ? { nextPageToken: issuePageToken(type, digested, offset + pageSize) } : {}),
    totalCount: Number(total.n),
  };
}

/** `POST .../objects/{type}/search`. */
export async function searchObjects(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: { ontology: string; objectType: string; request: SearchObjectsRequest },
): Promise<ObjectPage> {
  const open = await openOntology(deps, principal, input.ontology);
  return objectPage(deps.db, open.ontology, readableType(open, input.objectType), input.request);
}
