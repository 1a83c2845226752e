import type { DataType } from '../../schemas/ontology.ts';
import {
  type PutStreamBindingInput,
  STREAM_FIELD_TYPES,
  STREAM_LIMITS,
  type StreamBindingView,
  type StreamField,
  type StreamFieldType,
} from '../../schemas/streams.ts';
import { checkMapping, invalidAt } from '../connectivity/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { findObjectTypeRecord, findOntologyOfCompany, isPlatformType } from '../ontology/index.ts';
import { ownValue } from '../own-keys.ts';
import type { Principal } from '../principal.ts';
import { bindingRows, bindingView, companyForStreams, findStream } from './repository.ts';

/** The field types each property type takes (what coerceValue converts and the writer then accepts). */
const FITS: Partial<Record<DataType['type'], readonly StreamFieldType[]>> = {
  string: STREAM_FIELD_TYPES,
  integer: ['integer'],
  long: ['integer', 'long'],
  double: ['integer', 'long', 'double'],
  boolean: ['boolean'],
  date: ['date'],
  timestamp: ['timestamp'],
};

/**
 * Makes the stream a data source of an object type (or replaces its mapping): every record pushed
 * from now on is also written into the type. The mapping is checked as a sync's (the type's
 * properties, the primary key mapped), and against the stream: each field exists, its type fits
 * the property's, and the primary key's field is required (every record then names its object).
 */
export async function bindStream(
  db: DbOrTrx,
  principal: Principal,
  namespace: string,
  name: string,
  objectType: string,
  input: PutStreamBindingInput,
): Promise<StreamBindingView> {
  const company = await companyForStreams(db, principal, 'stream.manage', namespace, name);
  const stream = await findStream(db, company, name, true);
  const ontology = await findOntologyOfCompany(db, company.id);
  const type = ontology && (await findObjectTypeRecord(db, ontology.id, objectType));
  if (!type) throw new DomainError('object_type_not_found', `No object type ${objectType}.`, { details: { objectType } });
  if (isPlatformType(type.apiName)) {
    throw new DomainError('object_type_read_only', `${type.apiName} is written by the platform data source only.`, {
      details: { objectType: type.apiName },
    });
  }
  checkMapping(type, input.mapping);
  const fields = new Map((stream.fields as StreamField[]).map((f) => [f.name, f]));
  for (const [property, fieldName] of Object.entries(input.mapping)) {
    const field = fields.get(fieldName);
    const path = `mapping.${property}`;
    if (!field) throw invalidAt(path, `The stream ${name} has no field ${fieldName}.`);
    const dataType = ownValue(type.properties, property)!.dataType.type;
    if (!FITS[dataType]?.includes(field.type)) {
      throw invalidAt(
        path,
        `${fieldName} is a ${field.type} field; ${type.apiName}.${property} is a ${dataType} property and cannot take it.`,
      );
    }
    if (property === type.primaryKey && !field.required) {
      throw invalidAt(path, `${fieldName} maps the primary key ${property}: make it a required field of the stream.`);
    }
  }
  const others = await bindingRows(db).where('stream_id', '=', stream.id).where('object_type', '!=', type.apiName).execute();
  if (others.length >= STREAM_LIMITS.bindingsPerStream) {
    throw new DomainError('conflict', `A stream feeds at most ${STREAM_LIMITS.bindingsPerStream} object types.`, {
      details: { limit: STREAM_LIMITS.bindingsPerStream },
    });
  }
  await db
    .insertInto('data_stream_bindings')
    .values({ stream_id: stream.id, object_type: type.apiName, mapping: JSON.stringify(input.mapping), created_by: principal.account.id })
    .onConflict((oc) => oc.columns(['stream_id', 'object_type']).doUpdateSet({ mapping: JSON.stringify(input.mapping) }))
    .execute();
  return bindingView(
    await bindingRows(db).where('stream_id', '=', stream.id).where('object_type', '=', type.apiName).executeTakeFirstOrThrow(),
  );
}

/** Stops writing the stream's records into the object type (its objects stay). */
export async function unbindStream(db: DbOrTrx, principal: Principal, namespace: string, name: string, objectType: string): Promise<void> {
  const company = await companyForStreams(db, principal, 'stream.manage', namespace, name);
  const stream = await findStream(db, company, name, true);
  const removed = await db
    .deleteFrom('data_stream_bindings')
    .where('stream_id', '=', stream.id)
    .where('object_type', '=', objectType)
    .executeTakeFirst();
  if (removed.numDeletedRows === 0n) {
    throw new DomainError('stream_binding_not_found', `The stream ${name} is not a data source of ${objectType}.`, {
      details: { stream: name, objectType },
    });
  }
}
