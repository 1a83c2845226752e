import type { MediaReference } from '../../schemas/ontology.ts';
import { problem, reportedProblems } from '../../schemas/problems.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { assertNotMarkedOut, openOntology, readableType } from './data-access.ts';
import { findObject } from './get-object.ts';
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

const mediaPropertyOf = (
  open: Awaited<ReturnType<typeof openOntology>>,
  type: ReturnType<typeof readableType>,
  property: string,
): MediaProperty => ({
  companyId: open.ontology.companyId,
  cellId: open.ontology.cellId,
  objectTypeId: type.id,
  objectType: type.apiName,
  property,
});

/**
 * A media property (type mediaReference) of a type the caller may upload into (the policy's
 * ontology.upload-media: developers, a restricted agent key for its listed types, an app ticket
 * that may apply actions when no object is named; others who can read the type 403, the rest 404);
 * any other property is property_not_found.
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
  authorize(principal, 'ontology.upload-media', { namespace: open.ontology.cellId, objectType, direct: primaryKey !== undefined });
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
  return mediaPropertyOf(open, type, property);
}

/** An object's media property, named by its path. */
export interface ObjectMediaInput {
  ontology: string;
  objectType: string;
  primaryKey: string;
  property: string;
}

/**
 * The mediaReference an object's media property holds, read as the object is (the caller's data
 * access, the type's markings and object security: an object the caller cannot read is
 * object_not_found), with the property; a property holding none is media_item_not_found.
 */
export async function heldMediaReference(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: ObjectMediaInput,
): Promise<{ property: MediaProperty; reference: MediaReference }> {
  const open = await openOntology(deps, principal, input.ontology);
  const type = readableType(open, input.objectType);
  if (!Object.hasOwn(type.properties, input.property) || type.properties[input.property]!.dataType.type !== 'mediaReference') {
    throw new DomainError('property_not_found', `${input.objectType} has no media property ${input.property}.`, {
      details: { objectType: input.objectType, property: input.property },
    });
  }
  const object = await findObject(deps.db, open, input.objectType, input.primaryKey, [input.property]);
  const reference = object[input.property] as MediaReference | null | undefined;
  if (!reference) {
    throw new DomainError('media_item_not_found', `${input.objectType} ${input.primaryKey} holds no media in ${input.property}.`, {
      details: { objectType: input.objectType, primaryKey: input.primaryKey, property: input.property },
    });
  }
  return { property: mediaPropertyOf(open, type, input.property), reference };
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
