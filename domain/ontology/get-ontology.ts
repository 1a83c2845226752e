import type { Ontology } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { openOntology } from './data-access.ts';
import { ontologyWire } from './list-ontologies.ts';

export async function getOntology(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, ontology: string): Promise<Ontology> {
  return ontologyWire((await openOntology(deps, principal, ontology)).ontology);
}
