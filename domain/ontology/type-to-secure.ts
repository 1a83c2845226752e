import type { ObjectSecurityPolicy } from '../../schemas/object-security.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { type DataDeps, openOntology, readableType } from './data-access.ts';

/**
 * The object type whose security policies the caller manages or tests: a type it reads (its markings
 * included), in a company where it may define types (developers; 403 otherwise).
 */
export async function typeToSecure(deps: DataDeps, principal: Principal, ontology: string, apiName: string) {
  const open = await openOntology(deps, principal, ontology);
  const type = readableType(open, apiName);
  authorize(principal, 'ontology.define', { namespace: open.ontology.cellId });
  return { open, type };
}

export const EMPTY_POLICY: ObjectSecurityPolicy = { objectPolicy: null, propertyPolicies: [] };
