import { createHash } from 'node:crypto';
import { type Expression, type Kysely, type RawBuilder, sql } from 'kysely';
import type { DataType, PropertyDefinition } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { ObjectTypeRecord, OntologyRecord } from './repository.ts';

// The storage of objects: each company has its own PostgreSQL schema, each object type a real
// table in it named by its apiName, one typed column per property (decided in the data-layer
// design; bench/ontology-storage.bench.ts measures it against one JSONB table). Names are user
// input: they reach SQL only through sql.id / sql.ref, which quote them.

/** System columns; property names start with a lowercase letter, so they never collide. */
export const REV = '__rev';
export const UPDATED_AT = '__updated_at';

const COLUMN_TYPES = {
  string: 'text',
  integer: 'integer',
  long: 'bigint',
  double: 'double precision',
  boolean: 'boolean',
  date: 'date',
  timestamp: 'timestamptz',
  array: 'jsonb',
  struct: 'jsonb',
  mediaReference: 'jsonb',
  attachment: 'jsonb',
} as const satisfies Record<DataType['type'], string>;

/** Arrays, structs, media references and attachments are kept as jsonb and not indexed. */
const isJson = (dataType: DataType) => COLUMN_TYPES[dataType.type] === 'jsonb';

/** The PostgreSQL type of a property's column (from the fixed table above, never from input). */
export const columnTypeOf = (dataType: DataType) => COLUMN_TYPES[dataType.type];

/** `ontology_<company id>`: lower-cased, as PostgreSQL folds; unique in `ontologies.schema_name`. */
export const schemaNameOf = (companyId: string) => `ontology_${companyId.toLowerCase()}`;

/** The quoted `"schema"."apiName"` of an object type's table. */
export const objectTable = (ontology: Pick<OntologyRecord, 'schemaName'>, type: Pick<ObjectTypeRecord, 'apiName'>) =>
  sql.id(ontology.schemaName, type.apiName);

/** Kysely without the typed table map, for the per-type tables the `Database` interface cannot name. */
export const untyped = (db: DbOrTrx) => db as unknown as Kysely<any>;

export async function createCompanySchema(db: DbOrTrx, schemaName: string): Promise<void> {
  await untyped(db).schema.createSchema(schemaName).ifNotExists().execute();
}

/**
 * A column's type in DDL. Text columns collate "C" (code-point order): comparisons, ordering and
 * their B-tree indexes then agree with each other whatever the database's locale.
 */
const columnDdlType = (p: PropertyDefinition) =>
  sql.raw(`${columnTypeOf(p.dataType)}${p.dataType.type === 'string' ? ' COLLATE "C"' : ''}`);

const columnDef = (name: string, p: PropertyDefinition) => sql`${sql.id(name)} ${columnDdlType(p)}`;

/**
 * A B-tree index on a scalar property, so search, orderBy and ranges do not scan the whole type
 * (at 10^6 objects a scan is hundreds of milliseconds: bench/ontology-storage.ts). Arrays and
 * structs are jsonb and are not indexed. Named from the type's id and a digest of the property,
 * so the name stays within PostgreSQL's 63 bytes; dropping the column drops it.
 */
async function indexProperty(db: DbOrTrx, ontology: OntologyRecord, type: ObjectTypeRecord, name: string, p: PropertyDefinition) {
  if (name === type.primaryKey || isJson(p.dataType)) return;
  await sql`CREATE INDEX ${sql.id(indexName(type, name))} ON ${objectTable(ontology, type)} (${sql.id(name)})`.execute(db);
}

const indexName = (type: Pick<ObjectTypeRecord, 'id'>, name: string) =>
  `ix_${type.id.toLowerCase()}_${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;

/** CREATE TABLE for a new object type, with its property indexes, in the defining transaction. */
export async function createObjectTable(db: DbOrTrx, ontology: OntologyRecord, type: ObjectTypeRecord): Promise<void> {
  const columns = Object.entries(type.properties).map(([name, p]) => columnDef(name, p));
  await sql`CREATE TABLE ${objectTable(ontology, type)} (
    ${sql.join(columns)},
    ${sql.id(REV)} bigint NOT NULL DEFAULT 1,
    ${sql.id(UPDATED_AT)} timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (${sql.id(type.primaryKey)}))`.execute(db);
  for (const [name, p] of Object.entries(type.properties)) await indexProperty(db, ontology, type, name, p);
}

export async function addColumn(db: DbOrTrx, ontology: OntologyRecord, type: ObjectTypeRecord, name: string, p: PropertyDefinition) {
  await sql`ALTER TABLE ${objectTable(ontology, type)} ADD COLUMN ${columnDef(name, p)}`.execute(db);
  await indexProperty(db, ontology, type, name, p);
}

export async function dropColumn(db: DbOrTrx, ontology: OntologyRecord, type: ObjectTypeRecord, name: string) {
  await sql`ALTER TABLE ${objectTable(ontology, type)} DROP COLUMN ${sql.id(name)}`.execute(db);
}

/** Only for a column without values (the caller checked): nothing to convert. */
export async function retypeEmptyColumn(
  db: DbOrTrx,
  ontology: OntologyRecord,
  type: ObjectTypeRecord,
  name: string,
  p: PropertyDefinition,
) {
  await sql`DROP INDEX IF EXISTS ${sql.id(ontology.schemaName, indexName(type, name))}`.execute(db);
  await sql`ALTER TABLE ${objectTable(ontology, type)} ALTER COLUMN ${sql.id(name)} TYPE ${columnDdlType(p)} USING NULL`.execute(db);
  await indexProperty(db, ontology, type, name, p);
}

/** How many stored objects hold a value in each of these columns (what blocks removing or retyping them). */
export async function countValues(db: DbOrTrx, ontology: OntologyRecord, type: ObjectTypeRecord, names: readonly string[]) {
  if (names.length === 0) return new Map<string, number>();
  const counts = names.map((n, i) => sql`count(${sql.id(n)})`.as(`c${i}`));
  const row = await untyped(db).selectFrom(objectTable(ontology, type).as('o')).select(counts).executeTakeFirstOrThrow();
  return new Map(names.map((n, i) => [n, Number(row[`c${i}`])]));
}

/**
 * A property's column as the API reads it: dates as `YYYY-MM-DD` text (pg would make a local
 * midnight Date of them); the rest as the driver reads them (timestamptz as Date, bigint as number).
 */
export function readColumn(alias: string | null, name: string, p: PropertyDefinition): RawBuilder<unknown> {
  const ref = sql.ref(alias ? `${alias}.${name}` : name);
  return p.dataType.type === 'date' ? sql`${ref}::text` : sql`${ref}`;
}

/** A value bound for a property's column: JSON for arrays and structs (pg would send a JS array as a PostgreSQL array). */
export function writeValue(p: PropertyDefinition, value: unknown): Expression<unknown> {
  if (value === null || value === undefined) return sql`NULL`;
  if (isJson(p.dataType)) return sql`${JSON.stringify(value)}::jsonb`;
  return sql`${value}::${sql.raw(columnTypeOf(p.dataType))}`;
}

/**
 * One column's values as a single array parameter (`unnest` of it writes or matches any number of
 * rows with one statement and one bound parameter): JSON text for the jsonb columns, cast as
 * `writeValue` casts each value.
 */
export function columnValues(p: PropertyDefinition, values: readonly unknown[]): Expression<unknown> {
  const json = isJson(p.dataType);
  const items = values.map((v) => (v === null || v === undefined ? null : json ? JSON.stringify(v) : v));
  return sql`${items}::${sql.raw(columnTypeOf(p.dataType))}[]`;
}

/** `<alias>.<primary key> = ANY(keys)`: one statement and one parameter however many keys. */
export const keyAmong = (alias: string, type: ObjectTypeRecord, keys: readonly unknown[]) =>
  sql<boolean>`${sql.ref(`${alias}.${type.primaryKey}`)} = ANY(${columnValues(type.properties[type.primaryKey]!, keys)})`;

/** The API value of a stored one (timestamps as ISO 8601). */
export function apiValue(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}
