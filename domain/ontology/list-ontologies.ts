import type { Ontology } from '../../schemas/ontology.ts';
import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { openOntology } from './data-access.ts';
import type { OntologyRecord } from './repository.ts';

export const ontologyWire = (o: OntologyRecord): Ontology => ({
  rid: o.rid,
  apiName: o.cellId,
  displayName: o.companyName,
  description: `The ontology of ${o.companyName}.`,
});

/** The ontologies of the caller's companies (a key: its one company) that the caller may read something in. */
export async function listOntologies(deps: { db: DbOrTrx; clock: Clock }, principal: Principal): Promise<Ontology[]> {
  const { licenses } = await visitorOf(deps.db, principal, deps.clock.now());
  const out: Ontology[] = [];
  for (const license of licenses) {
    try {
      out.push(ontologyWire((await openOntology(deps, principal, license.cellId)).ontology));
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'ontology_not_found')) throw err;
    }
  }
  return out;
}
