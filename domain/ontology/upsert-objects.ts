import { sql } from 'kysely';
import type { OntologyObject } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { ownValue } from '../own-keys.ts';
import { keyAmong, objectTable, untyped } from './object-tables.ts';
import { selectObjects, toApiObject } from './objects.ts';
import type { ObjectTypeRecord, OntologyRecord } from './repository.ts';
import { findObjectTypeRecord, findOntologyOfCompany } from './repository.ts';
import { type Edit, type WriteEditsResult, writeEdits } from './write-edits.ts';

/**
 * The edits that upsert these objects: a create for each key not stored yet, a modify (the
 * properties given) for the others; `skipUnchanged`: none for an object whose given properties
 * hold those values already (a full refresh that found nothing new changes nothing).
 */
export async function upsertEdits(
  db: DbOrTrx,
  ontology: OntologyRecord,
  type: ObjectTypeRecord,
  objects: readonly Record<string, unknown>[],
  opts: { skipUnchanged?: boolean } = {},
): Promise<Edit[]> {
  const pk = type.primaryKey;
  const existing = new Map<string, OntologyObject | null>();
  const keys = objects.map((o) => ownValue(o, pk)).filter((k) => typeof k === 'string' || typeof k === 'number');
  if (opts.skipUnchanged) {
    // The stored rows themselves: security policies filter reads, never the service's own bookkeeping.
    const rows = await selectObjects(db, ontology, { ...type, security: null })
      .where(keyAmong('o', type, keys))
      .execute();
    for (const r of rows) existing.set(String(r[pk]), toApiObject(type, r));
  } else {
    const rows = await untyped(db)
      .selectFrom(objectTable(ontology, type).as('o'))
      .select(sql`${sql.ref(`o.${pk}`)}::text`.as('k'))
      .where(keyAmong('o', type, keys))
      .execute();
    for (const r of rows) existing.set(r.k as string, null);
  }
  const unchanged = (stored: OntologyObject, o: Record<string, unknown>) =>
    Object.entries(o).every(([n, v]) => JSON.stringify(stored[n] ?? null) === JSON.stringify(v ?? null));
  return objects.flatMap((o): Edit[] => {
    const key = String(ownValue(o, pk));
    if (!existing.has(key)) return [{ type: 'create', objectType: type.apiName, properties: o }];
    const stored = existing.get(key);
    if (stored && unchanged(stored, o)) return [];
    const { [pk]: primaryKey, ...properties } = o;
    return [{ type: 'modify', objectType: type.apiName, primaryKey: primaryKey as string | number, properties }];
  });
}

/**
 * The service's own upsert of one type's objects (data syncs), through the one writer in the
 * caller's transaction: change rows, edits history (no account) and the `ontology.changed` intent,
 * so change triggers and subscriptions see a sync as any other edit.
 */
export async function upsertObjects(
  db: DbOrTrx,
  input: {
    companyId: string;
    objectType: string;
    operationId: string;
    objects: readonly Record<string, unknown>[];
    platformWrite?: boolean;
  },
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
    // The platform's full refreshes write only what changed (its types change rarely, and every run reads them all).
    edits: await upsertEdits(db, ontology, type, input.objects, { skipUnchanged: input.platformWrite ?? false }),
    platformWrite: input.platformWrite ?? false,
  });
}

/** Every stored primary key of a type, as text (a full refresh's removal of what its source no longer has). */
export async function storedKeys(db: DbOrTrx, companyId: string, objectType: string): Promise<string[]> {
  const ontology = await findOntologyOfCompany(db, companyId);
  const type = ontology && (await findObjectTypeRecord(db, ontology.id, objectType));
  if (!ontology || !type) return [];
  const rows = await untyped(db)
    .selectFrom(objectTable(ontology, type).as('o'))
    .select(sql`${sql.ref(`o.${type.primaryKey}`)}::text`.as('k'))
    .execute();
  return rows.map((r) => r.k as string);
}
