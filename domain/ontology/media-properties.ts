import type { MediaReference } from '../../schemas/ontology.ts';
import { problem, reportedProblems } from '../../schemas/problems.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { assertNotMarkedOut, openOntology, readableType } from './data-access.ts';
import { valueProblem } from './property-values.ts';
import { writeEdits } from './write-edits.ts';

/** A media property as upload sessions see it. */
export interface MediaProperty {
  companyId: string;
  cellId: string;
  objectTypeId: string;
  objectType: string;
  property: string;
}

/**
 * A media property (type mediaReference) of a type the caller may upload into (the policy's
 * ontology.upload-media: developers, a restricted agent key for its listed types; others who can
 * read the type 403, the rest 404); any other property is property_not_found.
 */
export async function openMediaProperty(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  ontology: string,
  objectType: string,
  property: string,
  /** The object the upload will set, checked against the type's key (invalid_payload at body.primaryKey). */
  primaryKey?: string | number,
): Promise<MediaProperty> {
  const open = await openOntology(deps, principal, ontology);
  const type = readableType(open, objectType);
  authorize(principal, 'ontology.upload-media', { namespace: open.ontology.cellId, objectType });
  assertNotMarkedOut(open, [{ objectType }]);
  if (!Object.hasOwn(type.properties, property) || type.properties[property]!.dataType.type !== 'mediaReference') {
    throw new DomainError('property_not_found', `${objectType} has no media property ${property}.`, { details: { objectType, property } });
  }
  const keyProblem = primaryKey === undefined ? null : valueProblem(type.properties[type.primaryKey]!.dataType, primaryKey);
  if (keyProblem) {
    throw new DomainError('invalid_payload', undefined, {
      details: reportedProblems([problem('primaryKey', 'invalid_value', `the primary key of ${objectType} ${keyProblem}`)]),
    });
  }
  return { companyId: open.ontology.companyId, cellId: open.ontology.cellId, objectTypeId: type.id, objectType, property };
}

/** Sets an object's media property through the one writer (object_not_found when the object does not exist). */
export async function setMediaProperty(
  db: DbOrTrx,
  target: MediaProperty,
  accountId: string | null,
  primaryKey: string | number,
  value: MediaReference,
): Promise<void> {
  await writeEdits(db, {
    companyId: target.companyId,
    accountId,
    operationId: newId('ope'),
    actionTypeRid: null,
    edits: [{ type: 'modify', objectType: target.objectType, primaryKey, properties: { [target.property]: value } }],
  });
}
