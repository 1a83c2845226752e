import { type Expression, type SqlBool, sql } from 'kysely';
import type { ObjectPage, OntologyObject, OrderByField } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { type OpenOntology, openOntology, readableType } from './data-access.ts';
import { findObject } from './get-object.ts';
import { type LinkSide, linkSidesOf } from './list-link-types.ts';
import { columnTypeOf } from './object-tables.ts';
import type { ObjectTypeRecord } from './repository.ts';
import { objectPage } from './search-objects.ts';
import { parseOrderByParam } from './where.ts';

// Links: the objects at the other end of a link type, for one object (Foundry listLinkedObjects)
// or for a whole object set (searchAround).

/** The link named `link` as seen from `apiName`, with the type at its other end (both readable). */
export async function linkFrom(
  db: DbOrTrx,
  open: OpenOntology,
  apiName: string,
  link: string,
): Promise<{ side: LinkSide; other: ObjectTypeRecord }> {
  const side = (await linkSidesOf(db, open, apiName)).find((s) => s.side.apiName === link);
  if (!side)
    throw new DomainError('link_type_not_found', `${apiName} has no link ${link}.`, { details: { objectType: apiName, linkType: link } });
  return { side, other: readableType(open, side.side.objectTypeApiName) };
}

/**
 * Objects of the other type (alias `alias`) linked to any of `fromKeys` (primary keys as text).
 * Link rows keep keys as text: they are cast to the key's type, so the lookup uses the primary key.
 */
export function linkedPredicate(side: LinkSide, other: ObjectTypeRecord, fromKeys: Expression<unknown>, alias = 'o'): Expression<SqlBool> {
  const [mine, theirs] = side.from === 'source' ? ['source_key', 'target_key'] : ['target_key', 'source_key'];
  const keyType = sql.raw(columnTypeOf(other.properties[other.primaryKey]!.dataType));
  return sql<SqlBool>`${sql.ref(`${alias}.${other.primaryKey}`)} IN (
    SELECT (l.${sql.id(theirs)})::${keyType} FROM object_links l WHERE l.link_type_id = ${side.link.id} AND l.${sql.id(mine)} IN (${fromKeys}))`;
}

/** `GET .../objects/{type}/{pk}/links/{link}`: a page of the linked objects. */
export async function listLinkedObjects(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: {
    ontology: string;
    objectType: string;
    primaryKey: string;
    linkType: string;
    pageSize?: number | undefined;
    pageToken?: string | undefined;
    select?: string[] | undefined;
    orderBy?: string | undefined;
  },
): Promise<ObjectPage> {
  const open = await openOntology(deps, principal, input.ontology);
  const object = await findObject(deps.db, open, input.objectType, input.primaryKey);
  const { side, other } = await linkFrom(deps.db, open, input.objectType, input.linkType);
  const key = String(object.__primaryKey);
  const orderBy: OrderByField[] | undefined = input.orderBy === undefined ? undefined : parseOrderByParam(input.orderBy);
  return objectPage(
    deps.db,
    open.ontology,
    other,
    {
      ...(input.pageSize === undefined ? {} : { pageSize: input.pageSize }),
      ...(input.pageToken === undefined ? {} : { pageToken: input.pageToken }),
      ...(input.select === undefined ? {} : { select: input.select }),
      ...(orderBy === undefined ? {} : { orderBy: { fields: orderBy } }),
    },
    { predicate: linkedPredicate(side, other, sql`${key}`), key: `${side.link.id} ${side.from} ${key}` },
  );
}

/** `GET .../objects/{type}/{pk}/links/{link}/{linkedPk}`: the linked object, or object_not_found when these two are not linked. */
export async function getLinkedObject(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: {
    ontology: string;
    objectType: string;
    primaryKey: string;
    linkType: string;
    linkedPrimaryKey: string;
    select?: string[] | undefined;
  },
): Promise<OntologyObject> {
  const open = await openOntology(deps, principal, input.ontology);
  const object = await findObject(deps.db, open, input.objectType, input.primaryKey);
  const { side, other } = await linkFrom(deps.db, open, input.objectType, input.linkType);
  const linked = await findObject(deps.db, open, other.apiName, input.linkedPrimaryKey, input.select);
  const [mine, theirs] = side.from === 'source' ? (['source_key', 'target_key'] as const) : (['target_key', 'source_key'] as const);
  const row = await deps.db
    .selectFrom('object_links')
    .select('link_type_id')
    .where('link_type_id', '=', side.link.id)
    .where(mine, '=', String(object.__primaryKey))
    .where(theirs, '=', String(linked.__primaryKey))
    .executeTakeFirst();
  if (!row) {
    throw new DomainError(
      'object_not_found',
      `${input.objectType} ${input.primaryKey} has no ${input.linkType} link to ${input.linkedPrimaryKey}.`,
      {
        details: { errorName: 'LinkedObjectNotFound', linkType: input.linkType },
      },
    );
  }
  return linked;
}
