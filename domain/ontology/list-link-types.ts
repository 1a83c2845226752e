import type { LinkTypeSide } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { mayRead, type OpenOntology, openOntology, readableType } from './data-access.ts';
import { type LinkTypeRecord, listLinkTypeRecords } from './repository.ts';

/** One link type as seen from an object type (Foundry's outgoing link type), with the link type's record. */
export interface LinkSide {
  side: LinkTypeSide;
  link: LinkTypeRecord;
  /** Which end of the link row holds the object type seen from. */
  from: 'source' | 'target';
}

/** The links of a readable type whose other end the caller may read too (a link between objects of one type has two sides). */
export async function linkSidesOf(db: DbOrTrx, open: OpenOntology, apiName: string): Promise<LinkSide[]> {
  readableType(open, apiName);
  const out: LinkSide[] = [];
  for (const link of await listLinkTypeRecords(db, open.ontology.id)) {
    for (const [from, to] of [
      ['source', 'target'],
      ['target', 'source'],
    ] as const) {
      if (link[from].objectType !== apiName || !mayRead(open.access, link[to].objectType)) continue;
      out.push({
        from,
        link,
        side: {
          apiName: link[from].linkApiName,
          displayName: link[from].linkApiName,
          status: 'ACTIVE',
          objectTypeApiName: link[to].objectType,
          cardinality: link[from].cardinality,
          linkTypeRid: link.rid,
        },
      });
    }
  }
  return out.sort((a, b) => (a.side.apiName < b.side.apiName ? -1 : 1));
}

export async function listOutgoingLinkTypes(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, ontology: string, apiName: string) {
  return (await linkSidesOf(deps.db, await openOntology(deps, principal, ontology), apiName)).map((s) => s.side);
}

export async function getOutgoingLinkType(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  ontology: string,
  apiName: string,
  link: string,
) {
  const found = (await linkSidesOf(deps.db, await openOntology(deps, principal, ontology), apiName)).find((s) => s.side.apiName === link);
  if (!found)
    throw new DomainError('link_type_not_found', `${apiName} has no link ${link}.`, { details: { objectType: apiName, linkType: link } });
  return found.side;
}
