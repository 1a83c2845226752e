import type { LinkType, ObjectType } from '../../schemas/ontology.ts';
import { findCompany } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { mayRead, openOntology } from './data-access.ts';
import {
  findOntologyOfCompany,
  type LinkTypeRecord,
  listLinkTypeRecords,
  listObjectTypeRecords,
  type ObjectTypeRecord,
} from './repository.ts';

/** Foundry ObjectTypeV2 of a stored definition. */
export function objectTypeWire(t: ObjectTypeRecord): ObjectType {
  return {
    rid: t.rid,
    apiName: t.apiName,
    displayName: t.displayName,
    pluralDisplayName: t.pluralDisplayName,
    ...(t.description === null ? {} : { description: t.description }),
    status: 'ACTIVE',
    primaryKey: t.primaryKey,
    titleProperty: t.titleProperty,
    properties: t.properties,
    version: t.version,
  };
}

/** The object types of an ontology the caller may read, by apiName. */
export async function listObjectTypes(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, ontology: string): Promise<ObjectType[]> {
  const open = await openOntology(deps, principal, ontology);
  return open.types.filter((t) => mayRead(open.access, t.apiName)).map(objectTypeWire);
}

/** Developer view of a namespace's definitions (`GET /api/v1/developer/semantic/{namespace}/types`): every object and link type. */
export async function listDefinitions(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, namespace: string) {
  const company = await findCompany(deps.db, namespace);
  authorize(principal, 'ontology.define', { namespace: company.cell_id });
  const ontology = await findOntologyOfCompany(deps.db, company.id);
  if (!ontology) return { types: [], linkTypes: [] };
  const links = await listLinkTypeRecords(deps.db, ontology.id);
  return {
    types: (await listObjectTypeRecords(deps.db, ontology.id)).map(objectTypeWire),
    linkTypes: links.map((l): LinkType => ({ rid: l.rid, apiName: l.apiName, source: sideWire(l.source), target: sideWire(l.target) })),
  };
}

const sideWire = (s: LinkTypeRecord['source']) => ({ objectType: s.objectType, linkApiName: s.linkApiName, cardinality: s.cardinality });
