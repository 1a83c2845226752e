import { sql } from 'kysely';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { ownValue } from '../own-keys.ts';
import { objectTable, untyped } from './object-tables.ts';
import type { ObjectTypeRecord, OntologyRecord } from './repository.ts';
import { findObjectTypeRecord, findOntologyOfCompany } from './repository.ts';
import { type Edit, type WriteEditsResult, writeEdits } from './write-edits.ts';

/** The edits that upsert these objects: a create for each key not stored yet, a modify (the properties given) for the others. */
export async function upsertEdits(
  db: DbOrTrx,
  ontology: OntologyRecord,
  type: ObjectTypeRecord,
  objects: readonly Record<string, unknown>[],
): Promise<Edit[]> {
  const pk = type.primaryKey;
  const existing = new Set<string>();
  const keys = objects.map((o) => ownValue(o, pk)).filter((k) => typeof k === 'string' || typeof k === 'number');
  for (let i = 0; i < keys.length; i += 1000) {
    const rows = await untyped(db)
      .selectFrom(objectTable(ontology, type).as('o'))
      .select(sql`${sql.ref(`o.${pk}`)}::text`.as('k'))
      .where(sql.ref(`o.${pk}`), 'in', keys.slice(i, i + 1000))
      .execute();
    for (const r of rows) existing.add(r.k as string);
  }
  return objects.map((o) => {
    if (!existing.has(String(ownValue(o, pk)))) return { type: 'create', objectType: type.apiName, properties: o };
    const { [pk]: key, ...properties } = o;
    return { type: 'modify', objectType: type.apiName, primaryKey: key as string | number, properties };
  });
}

/**
 * The service's own upsert of one type's objects (data syncs), through the one writer in the
 * caller's transaction: change rows, edits history (no account) and the `ontology.changed` intent,
 * so change triggers and subscriptions see a sync as any other edit.
 */
export async function upsertObjects(
  db: DbOrTrx,
  input: { companyId: string; objectType: string; operationId: string; objects: readonly Record<string, unknown>[] },
): Promise<WriteEditsResult> {
  const ontology = await findOntologyOfCompany(db, input.companyId);
  const type = ontology && (await findObjectTypeRecord(db, ontology.id, input.objectType));
  if (!ontology || !type) {
    throw new DomainError('object_type_not_found', `No object type ${input.objectType}.`, { details: { objectType: input.objectType } });
  }
  return writeEdits(db, {
    companyId: input.companyId,
    accountId: null,
    operationId: input.operationId,
    actionTypeRid: null,
    edits: await upsertEdits(db, ontology, type, input.objects),
  });
}
