import type { z } from 'zod';
import { DefineTypesRequest, type DefineTypesResult, type LinkTypeDefinition, type ObjectTypeDefinition } from '../../schemas/ontology.ts';
import { issuesToProblems, reportedProblems } from '../../schemas/problems.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { ownRecord } from '../own-keys.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { canonicalJson } from './canonical-json.ts';
import { companyToDefine } from './data-access.ts';
import {
  addColumn,
  countValues,
  createCompanySchema,
  createObjectTable,
  dropColumn,
  retypeEmptyColumn,
  schemaNameOf,
} from './object-tables.ts';
import { isPlatformType, PLATFORM_TYPES, readOnlyType } from './platform-types.ts';
import {
  countLinks,
  definitionOf,
  findObjectTypeRecord,
  findOntologyOfCompany,
  insertOntology,
  type LinkTypeRecord,
  linkTypeRid,
  listLinkTypeRecords,
  listObjectTypeRecords,
  type ObjectTypeRecord,
  type OntologyRecord,
  objectTypeRid,
  saveLinkType,
  saveObjectType,
} from './repository.ts';

type Result = z.input<typeof DefineTypesResult>;
type Change = 'created' | 'changed' | 'unchanged';

const invalid = (errorName: string, path: string, message: string) =>
  new DomainError('definition_invalid', message, { details: { errorName, problems: [{ path, code: errorName, message }] } });

/** The ontology of the company, made (row and schema) at its first definition. */
async function ensureOntology(db: DbOrTrx, companyId: string): Promise<OntologyRecord> {
  const found = await findOntologyOfCompany(db, companyId);
  if (found) return found;
  const schemaName = schemaNameOf(companyId);
  await insertOntology(db, { id: newId('ont'), companyId, schemaName });
  await createCompanySchema(db, schemaName);
  const made = await findOntologyOfCompany(db, companyId);
  if (!made) throw new Error(`ontology of ${companyId} not found after insert`);
  return made;
}

/**
 * Batch definition (`POST /api/v1/developer/semantic/{namespace}/types`): object types created or
 * changed, then link types, in the caller's transaction with their DDL, so a failure or a dry run
 * leaves nothing. Each change of a type is a new version. A change that would lose stored values
 * (removing or retyping a property that holds any) is refused with definition_breaking_change;
 * the primary key never changes.
 */
export async function defineObjectTypes(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  input: unknown,
): Promise<Result> {
  const { db } = deps;
  const company = await companyToDefine(deps, principal, namespace);
  const parsed = DefineTypesRequest.safeParse(input);
  if (!parsed.success) {
    throw new DomainError('definition_invalid', undefined, {
      details: { errorName: 'InvalidDefinition', ...reportedProblems(issuesToProblems(parsed.error.issues, '')) },
    });
  }
  const request = parsed.data;
  const reserved = request.types.find((t) => isPlatformType(t.apiName));
  if (reserved) throw readOnlyType(reserved.apiName);
  const ontology = await ensureOntology(db, company.id);
  const accountId = principal.account.id;

  const types: Result['types'] = [];
  // In name order, so two batches touching the same types lock them in the same order.
  for (const def of [...request.types].sort((a, b) => (a.apiName < b.apiName ? -1 : 1))) {
    const { record, change } = await defineOne(db, ontology, def, accountId);
    types.push({ apiName: record.apiName, rid: record.rid, version: record.version, change });
  }
  const linkTypes = await defineLinkTypes(db, ontology, request.linkTypes);
  return { types, linkTypes };
}

/** The platform data source's types in the company's ontology (made, or brought to their current definition); by the service, no account. */
export async function definePlatformTypes(db: DbOrTrx, companyId: string): Promise<void> {
  const ontology = await ensureOntology(db, companyId);
  for (const def of Object.values(PLATFORM_TYPES)) await defineOne(db, ontology, def, null);
}

async function defineOne(db: DbOrTrx, ontology: OntologyRecord, def: ObjectTypeDefinition, accountId: string | null) {
  const displayName = def.displayName ?? def.apiName;
  const wanted = {
    apiName: def.apiName,
    displayName,
    pluralDisplayName: def.pluralDisplayName ?? displayName,
    description: def.description ?? null,
    primaryKey: def.primaryKey,
    titleProperty: def.titleProperty ?? def.primaryKey,
    properties: ownRecord(def.properties),
  };
  const existing = await findObjectTypeRecord(db, ontology.id, def.apiName, { lock: true });
  if (!existing) {
    const id = newId('otp');
    const record: ObjectTypeRecord = { ...wanted, id, rid: objectTypeRid(id), ontologyId: ontology.id, version: 1 };
    await saveObjectType(db, record, accountId, true);
    await createObjectTable(db, ontology, record);
    return { record, change: 'created' as Change };
  }
  if (canonicalJson(definitionOf(existing)) === canonicalJson(definitionOf(wanted)))
    return { record: existing, change: 'unchanged' as Change };
  if (existing.primaryKey !== wanted.primaryKey) {
    throw invalid(
      'PrimaryKeyCannotChange',
      'types.primaryKey',
      `The primary key of ${def.apiName} is ${existing.primaryKey}; it never changes.`,
    );
  }
  const removed = Object.keys(existing.properties).filter((p) => !wanted.properties[p]);
  const retyped = Object.keys(existing.properties).filter(
    (p) => wanted.properties[p] && canonicalJson(wanted.properties[p].dataType) !== canonicalJson(existing.properties[p]?.dataType),
  );
  const added = Object.keys(wanted.properties).filter((p) => !existing.properties[p]);
  const counts = await countValues(db, ontology, existing, [...removed, ...retyped]);
  const blocking = [
    ...removed.map((p) => ({ property: p, change: 'removed' })),
    ...retyped.map((p) => ({ property: p, change: 'dataTypeChanged' })),
  ]
    .map((b) => ({ ...b, objectsWithValues: counts.get(b.property) ?? 0 }))
    .filter((b) => b.objectsWithValues > 0);
  if (blocking.length > 0) {
    throw new DomainError(
      'definition_breaking_change',
      `Stored objects of ${def.apiName} hold values in ${blocking.map((b) => b.property).join(', ')}: clear them first, or add a new property instead.`,
      { details: { objectType: def.apiName, properties: blocking } },
    );
  }
  for (const p of removed) await dropColumn(db, ontology, existing, p);
  for (const p of retyped) await retypeEmptyColumn(db, ontology, existing, p, wanted.properties[p]!);
  for (const p of added) await addColumn(db, ontology, existing, p, wanted.properties[p]!);
  const record: ObjectTypeRecord = { ...existing, ...wanted, version: existing.version + 1 };
  await saveObjectType(db, record, accountId, false);
  return { record, change: 'changed' as Change };
}

async function defineLinkTypes(db: DbOrTrx, ontology: OntologyRecord, defs: readonly LinkTypeDefinition[]): Promise<Result['linkTypes']> {
  if (defs.length === 0) return [];
  const typeIds = new Map((await listObjectTypeRecords(db, ontology.id)).map((t) => [t.apiName, t.id]));
  const stored = await listLinkTypeRecords(db, ontology.id);
  // Each object type's link names, over the link types this batch leaves as they are and the ones it defines.
  const names = new Map<string, string>();
  const claim = (objectType: string, linkApiName: string, linkType: string, path: string) => {
    const key = `${objectType} ${linkApiName}`;
    const owner = names.get(key);
    if (owner !== undefined && owner !== linkType) {
      throw invalid('DuplicateLinkName', path, `${objectType} already has a link named ${linkApiName} (link type ${owner}).`);
    }
    names.set(key, linkType);
  };
  const redefined = new Set(defs.map((d) => d.apiName));
  for (const l of stored.filter((l) => !redefined.has(l.apiName))) {
    claim(l.source.objectType, l.source.linkApiName, l.apiName, '');
    claim(l.target.objectType, l.target.linkApiName, l.apiName, '');
  }
  const out: Result['linkTypes'] = [];
  for (const [i, def] of defs.entries()) {
    const sourceTypeId = typeIds.get(def.source.objectType);
    const targetTypeId = typeIds.get(def.target.objectType);
    for (const [side, id] of [['source', sourceTypeId] as const, ['target', targetTypeId] as const]) {
      if (!id)
        throw invalid(
          'ObjectTypeNotFound',
          `linkTypes[${i}].${side}.objectType`,
          `No object type ${def[side].objectType} in this ontology.`,
        );
    }
    claim(def.source.objectType, def.source.linkApiName, def.apiName, `linkTypes[${i}].source.linkApiName`);
    claim(def.target.objectType, def.target.linkApiName, def.apiName, `linkTypes[${i}].target.linkApiName`);
    const existing = stored.find((l) => l.apiName === def.apiName);
    const input = {
      id: existing?.id ?? newId('lnk'),
      ontologyId: ontology.id,
      sourceTypeId: sourceTypeId!,
      targetTypeId: targetTypeId!,
      definition: def,
    };
    const change: Change = !existing ? 'created' : sameLink(existing, def) ? 'unchanged' : 'changed';
    if (change === 'changed') {
      const links = await countLinks(db, existing!.id);
      if (links > 0) {
        throw new DomainError('definition_breaking_change', `Link type ${def.apiName} has ${links} links stored: it cannot change.`, {
          details: { linkType: def.apiName, links },
        });
      }
    }
    if (change !== 'unchanged') await saveLinkType(db, input, change === 'created');
    out.push({ apiName: def.apiName, rid: linkTypeRid(input.id), change });
  }
  return out;
}

const sameLink = (l: LinkTypeRecord, d: LinkTypeDefinition) =>
  canonicalJson({ source: { ...l.source, typeId: undefined }, target: { ...l.target, typeId: undefined } }) ===
  canonicalJson({ source: d.source, target: d.target });
