import { sql } from 'kysely';
import { ObjectSecurityPolicy } from '../../schemas/object-security.ts';
import {
  LINK_TYPE_RID_PREFIX,
  type LinkTypeDefinition,
  OBJECT_TYPE_RID_PREFIX,
  ONTOLOGY_RID_PREFIX,
  type PropertyDefinition,
} from '../../schemas/ontology.ts';
import type { DbOrTrx, LinkCardinality } from '../db/index.ts';
import { ownRecord } from '../own-keys.ts';
import type { PolicyGates } from '../policy/index.ts';

// Definitions: ontologies, object types (with every version) and link types. Objects live in the
// per-type tables (object-tables.ts) and are written by write-edits.ts only.

export interface OntologyRecord {
  id: string;
  rid: string;
  companyId: string;
  /** The company's namespace: the ontology's API name. */
  cellId: string;
  companyName: string;
  /** The company's own PostgreSQL schema, holding one table per object type. */
  schemaName: string;
}

export interface ObjectTypeRecord {
  id: string;
  rid: string;
  ontologyId: string;
  apiName: string;
  displayName: string;
  pluralDisplayName: string;
  description: string | null;
  primaryKey: string;
  titleProperty: string;
  properties: Record<string, PropertyDefinition>;
  version: number;
  /** Its object and property security policies (object-security.ts); null or absent: none. */
  security?: ObjectSecurityPolicy | null;
  /**
   * What `security` asks of the caller, set by openOntology for its principal. A read of a type with
   * a policy and no gates judges as nobody (cleared for nothing, no attributes): never wider.
   */
  gates?: PolicyGates;
}

export interface LinkTypeRecord {
  id: string;
  rid: string;
  apiName: string;
  source: { typeId: string; objectType: string; linkApiName: string; cardinality: LinkCardinality };
  target: { typeId: string; objectType: string; linkApiName: string; cardinality: LinkCardinality };
}

export const ontologyRid = (cellId: string) => `${ONTOLOGY_RID_PREFIX}${cellId}`;
export const objectTypeRid = (id: string) => `${OBJECT_TYPE_RID_PREFIX}${id}`;
export const linkTypeRid = (id: string) => `${LINK_TYPE_RID_PREFIX}${id}`;

const ontologies = (db: DbOrTrx) =>
  db
    .selectFrom('ontologies as o')
    .innerJoin('companies as c', 'c.id', 'o.company_id')
    .select(['o.id', 'o.company_id', 'o.schema_name', 'c.cell_id', 'c.name']);

const toOntology = (r: { id: string; company_id: string; schema_name: string; cell_id: string; name: string }): OntologyRecord => ({
  id: r.id,
  rid: ontologyRid(r.cell_id),
  companyId: r.company_id,
  cellId: r.cell_id,
  companyName: r.name,
  schemaName: r.schema_name,
});

/** The ontology named by its API name (the company's namespace) or its RID. */
export async function findOntology(db: DbOrTrx, ref: string): Promise<OntologyRecord | undefined> {
  const cellId = ref.startsWith(ONTOLOGY_RID_PREFIX) ? ref.slice(ONTOLOGY_RID_PREFIX.length) : ref;
  const row = await ontologies(db).where('c.cell_id', '=', cellId).executeTakeFirst();
  return row && toOntology(row);
}

export async function findOntologyOfCompany(db: DbOrTrx, companyId: string): Promise<OntologyRecord | undefined> {
  const row = await ontologies(db).where('o.company_id', '=', companyId).executeTakeFirst();
  return row && toOntology(row);
}

export async function insertOntology(db: DbOrTrx, row: { id: string; companyId: string; schemaName: string }): Promise<void> {
  // Two first definitions at once: the second waits on the unique company and then finds the row.
  await db
    .insertInto('ontologies')
    .values({ id: row.id, company_id: row.companyId, schema_name: row.schemaName })
    .onConflict((c) => c.column('company_id').doNothing())
    .execute();
}

type ObjectTypeRow = {
  id: string;
  ontology_id: string;
  api_name: string;
  display_name: string;
  plural_display_name: string;
  description: string | null;
  primary_key: string;
  title_property: string;
  properties: Record<string, unknown>;
  version: number;
  security: unknown;
};

const toObjectType = (r: ObjectTypeRow): ObjectTypeRecord => ({
  id: r.id,
  rid: objectTypeRid(r.id),
  ontologyId: r.ontology_id,
  apiName: r.api_name,
  displayName: r.display_name,
  pluralDisplayName: r.plural_display_name,
  description: r.description,
  primaryKey: r.primary_key,
  titleProperty: r.title_property,
  properties: ownRecord(r.properties as Record<string, PropertyDefinition>),
  version: r.version,
  security: r.security === null ? null : ObjectSecurityPolicy.parse(r.security),
});

const OBJECT_TYPE_COLUMNS = [
  'id',
  'ontology_id',
  'api_name',
  'display_name',
  'plural_display_name',
  'description',
  'primary_key',
  'title_property',
  'properties',
  'version',
] as const;

/** The type's columns and its security policy (a sub-resource kept in object_type_security). */
const objectTypes = (db: DbOrTrx) =>
  db
    .selectFrom('object_types')
    .select(OBJECT_TYPE_COLUMNS)
    .select((eb) =>
      eb.selectFrom('object_type_security as s').select('s.policy').whereRef('s.object_type_id', '=', 'object_types.id').as('security'),
    );

export async function listObjectTypeRecords(db: DbOrTrx, ontologyId: string): Promise<ObjectTypeRecord[]> {
  const rows = await objectTypes(db).where('ontology_id', '=', ontologyId).orderBy('api_name').execute();
  return rows.map(toObjectType);
}

/** `lock`: FOR UPDATE, so concurrent definitions of one type run one after the other. */
export async function findObjectTypeRecord(
  db: DbOrTrx,
  ontologyId: string,
  apiName: string,
  opts: { lock?: boolean } = {},
): Promise<ObjectTypeRecord | undefined> {
  let q = objectTypes(db).where('ontology_id', '=', ontologyId).where('api_name', '=', apiName);
  if (opts.lock) q = q.forUpdate('object_types');
  const row = await q.executeTakeFirst();
  return row && toObjectType(row);
}

/** Writes the type's current definition and appends it as a version. */
export async function saveObjectType(db: DbOrTrx, t: ObjectTypeRecord, accountId: string | null, created: boolean): Promise<void> {
  const values = {
    display_name: t.displayName,
    plural_display_name: t.pluralDisplayName,
    description: t.description,
    title_property: t.titleProperty,
    properties: JSON.stringify(t.properties),
    version: t.version,
  };
  if (created) {
    await db
      .insertInto('object_types')
      .values({ id: t.id, ontology_id: t.ontologyId, api_name: t.apiName, primary_key: t.primaryKey, ...values })
      .execute();
  } else {
    await db
      .updateTable('object_types')
      .set({ ...values, updated_at: sql<Date>`now()` as unknown as Date })
      .where('id', '=', t.id)
      .execute();
  }
  await db
    .insertInto('object_type_versions')
    .values({ object_type_id: t.id, version: t.version, definition: JSON.stringify(definitionOf(t)), account_id: accountId })
    .execute();
}

/** The definition as a developer wrote it (what a version keeps and what a redefinition is compared with). */
export function definitionOf(t: Omit<ObjectTypeRecord, 'id' | 'rid' | 'ontologyId' | 'version'>) {
  return {
    apiName: t.apiName,
    displayName: t.displayName,
    pluralDisplayName: t.pluralDisplayName,
    ...(t.description === null ? {} : { description: t.description }),
    primaryKey: t.primaryKey,
    titleProperty: t.titleProperty,
    properties: t.properties,
  };
}

const linkTypes = (db: DbOrTrx) =>
  db
    .selectFrom('link_types as l')
    .innerJoin('object_types as s', 's.id', 'l.source_type_id')
    .innerJoin('object_types as t', 't.id', 'l.target_type_id')
    .select([
      'l.id',
      'l.api_name',
      'l.source_type_id',
      's.api_name as source_api_name',
      'l.source_link_name',
      'l.source_cardinality',
      'l.target_type_id',
      't.api_name as target_api_name',
      'l.target_link_name',
      'l.target_cardinality',
    ]);

type LinkTypeRow = Awaited<ReturnType<ReturnType<typeof linkTypes>['executeTakeFirstOrThrow']>>;

const toLinkType = (r: LinkTypeRow): LinkTypeRecord => ({
  id: r.id,
  rid: linkTypeRid(r.id),
  apiName: r.api_name,
  source: { typeId: r.source_type_id, objectType: r.source_api_name, linkApiName: r.source_link_name, cardinality: r.source_cardinality },
  target: { typeId: r.target_type_id, objectType: r.target_api_name, linkApiName: r.target_link_name, cardinality: r.target_cardinality },
});

export async function listLinkTypeRecords(db: DbOrTrx, ontologyId: string): Promise<LinkTypeRecord[]> {
  return (await linkTypes(db).where('l.ontology_id', '=', ontologyId).orderBy('l.api_name').execute()).map(toLinkType);
}

export async function saveLinkType(
  db: DbOrTrx,
  input: { id: string; ontologyId: string; sourceTypeId: string; targetTypeId: string; definition: LinkTypeDefinition },
  created: boolean,
): Promise<void> {
  const d = input.definition;
  const values = {
    source_type_id: input.sourceTypeId,
    source_link_name: d.source.linkApiName,
    source_cardinality: d.source.cardinality,
    target_type_id: input.targetTypeId,
    target_link_name: d.target.linkApiName,
    target_cardinality: d.target.cardinality,
  };
  if (created)
    await db
      .insertInto('link_types')
      .values({ id: input.id, ontology_id: input.ontologyId, api_name: d.apiName, ...values })
      .execute();
  else await db.updateTable('link_types').set(values).where('id', '=', input.id).execute();
}

export async function countLinks(db: DbOrTrx, linkTypeId: string): Promise<number> {
  const row = await db
    .selectFrom('object_links')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('link_type_id', '=', linkTypeId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
