import { type Expression, sql } from 'kysely';
import type { OntologyObject } from '../../schemas/ontology.ts';
import { type AttachmentSlot, syncAttachmentLinks } from '../attachments/index.ts';
import type { ChangeState, DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { enqueue } from '../outbox/index.ts';
import { ownValue } from '../own-keys.ts';
import { columnValues, keyAmong, objectTable, REV, UPDATED_AT, writeValue } from './object-tables.ts';
import { returningObject, selectObjects, toApiObject } from './objects.ts';
import { isPlatformType, readOnlyType } from './platform-types.ts';
import { valueProblem } from './property-values.ts';
import {
  findOntologyOfCompany,
  type LinkTypeRecord,
  listLinkTypeRecords,
  listObjectTypeRecords,
  type ObjectTypeRecord,
  type OntologyRecord,
} from './repository.ts';

// THE one writer of objects and links (the data-layer design): actions, direct developer edits and
// imports all come here, so every committed change has its history row, its change row and its
// outbox intent, in the caller's transaction.

export type PrimaryKey = string | number;

export type Edit =
  /** `properties` holds the primary key too. */
  | { type: 'create'; objectType: string; properties: Record<string, unknown> }
  /** Only the properties given change; null clears one. `ifRev`: refused with rev_mismatch unless the object is at that revision. */
  | { type: 'modify'; objectType: string; primaryKey: PrimaryKey; properties: Record<string, unknown>; ifRev?: number }
  | { type: 'delete'; objectType: string; primaryKey: PrimaryKey; ifRev?: number }
  | { type: 'addLink'; linkType: string; source: PrimaryKey; target: PrimaryKey }
  | { type: 'removeLink'; linkType: string; source: PrimaryKey; target: PrimaryKey };

export interface WriteEditsInput {
  companyId: string;
  /** The acting account (null for the service's own writes). */
  accountId: string | null;
  /** One id per request or action run: the edits-history rows and the outbox intent carry it. */
  operationId: string;
  actionTypeRid: string | null;
  edits: readonly Edit[];
  /** The time attachments set by these edits are checked at (unused ones expire an hour after upload); default: now. */
  at?: Date;
  /** The platform data source sync's own write: the only one that may change `platform.*` objects (read-only to everyone else). */
  platformWrite?: boolean;
}

/** Each changed object's state before the first and after the last edit (null: absent). */
export interface ObjectChange {
  objectType: string;
  primaryKey: PrimaryKey;
  before: OntologyObject | null;
  after: OntologyObject | null;
}

export interface WriteEditsResult {
  objects: ObjectChange[];
  /** The ontology_changes sequence numbers written (null when no object changed). */
  seq: { from: number; to: number } | null;
}

/** pg_notify channel of committed changes; the payload is the company id. */
export const ONTOLOGY_CHANGES_CHANNEL = 'svc_ontology_changes';

const invalidEdit = (index: number, path: string, errorName: string, message: string) =>
  new DomainError('invalid_payload', message, {
    details: { errorName, problems: [{ path: `edits[${index}]${path}`, code: errorName, message }] },
  });

function checkProperties(type: ObjectTypeRecord, properties: Record<string, unknown>, index: number, creating: boolean): void {
  for (const [name, value] of Object.entries(properties)) {
    const p = type.properties[name];
    if (!p) throw invalidEdit(index, `.properties.${name}`, 'PropertiesNotFound', `${type.apiName} has no property ${name}.`);
    if (!creating && name === type.primaryKey) {
      throw invalidEdit(index, `.properties.${name}`, 'PrimaryKeyCannotChange', 'The primary key of an object never changes.');
    }
    if (value === null && name === type.primaryKey)
      throw invalidEdit(index, `.properties.${name}`, 'InvalidPropertyValue', 'The primary key is required.');
    const problem = value === null ? null : valueProblem(p.dataType, value);
    if (problem) throw invalidEdit(index, `.properties.${name}`, 'InvalidPropertyValue', `${name} ${problem}.`);
  }
}

/** The key as the column's type accepts it, checked like a property value. */
function keyOf(type: ObjectTypeRecord, key: unknown, index: number, path: string): PrimaryKey {
  const problem = key === null || key === undefined ? 'is required' : valueProblem(type.properties[type.primaryKey]!.dataType, key);
  if (problem) throw invalidEdit(index, path, 'InvalidPropertyValue', `The primary key ${problem}.`);
  return key as PrimaryKey;
}

/**
 * Locks the objects of one type that exist among these keys (FOR UPDATE, in primary-key order, so
 * two writers touching the same objects cannot deadlock) and returns their current state.
 */
async function lockObjects(db: DbOrTrx, ontology: OntologyRecord, type: ObjectTypeRecord, keys: readonly PrimaryKey[]) {
  const rows = await selectObjects(db, ontology, type)
    .where(keyAmong('o', type, keys))
    .orderBy(sql.ref(`o.${type.primaryKey}`))
    .forUpdate()
    .execute();
  return new Map(rows.map((row) => [String(row[type.primaryKey]), toApiObject(type, row)]));
}

function checkRev(type: ObjectTypeRecord, key: PrimaryKey, current: OntologyObject, ifRev: number | undefined) {
  if (ifRev !== undefined && current.__rev !== ifRev) {
    throw new DomainError('rev_mismatch', `${type.apiName} ${key} is at revision ${current.__rev}, not ${ifRev}.`, {
      details: { objectType: type.apiName, primaryKey: key, currentRev: current.__rev },
    });
  }
}

const notFound = (type: ObjectTypeRecord, key: PrimaryKey) =>
  new DomainError('object_not_found', `No ${type.apiName} ${key}.`, { details: { objectType: type.apiName, primaryKey: key } });

/**
 * Applies the edits in order, in the caller's transaction: locks each object (FOR UPDATE), checks
 * `ifRev`, writes, bumps `__rev`; appends an edits-history row per object edit and a change row per
 * changed object; notifies subscribers at commit and enqueues one `ontology.changed` intent.
 * Any failing edit fails them all (the caller's transaction rolls back).
 */
export async function writeEdits(db: DbOrTrx, input: WriteEditsInput): Promise<WriteEditsResult> {
  const ontology = await findOntologyOfCompany(db, input.companyId);
  if (!ontology) throw new DomainError('ontology_not_found', 'This company has no ontology yet: define object types first.');
  // The writer reads and locks the stored rows themselves: security policies filter reads, never the writer's own bookkeeping.
  const types = new Map((await listObjectTypeRecords(db, ontology.id)).map((t) => [t.apiName, { ...t, security: null }]));
  const linkTypes = input.edits.some((e) => e.type === 'addLink' || e.type === 'removeLink')
    ? new Map((await listLinkTypeRecords(db, ontology.id)).map((l) => [l.apiName, l]))
    : new Map<string, LinkTypeRecord>();
  const resolved = input.edits.map((edit, index) => resolve(types, linkTypes, edit, index));
  // Links from and to platform objects stay writable: they are the company's, the objects are not.
  for (const [index, r] of resolved.entries()) {
    if (r.kind === 'object' && !input.platformWrite && isPlatformType(r.type.apiName)) throw readOnlyType(r.type.apiName, index);
  }

  // Every object the edits touch, locked up front, type by type.
  const touched = new Map<ObjectTypeRecord, Map<string, PrimaryKey>>();
  const touch = (type: ObjectTypeRecord, key: PrimaryKey) => {
    if (!touched.has(type)) touched.set(type, new Map());
    touched.get(type)!.set(String(key), key);
  };
  for (const r of resolved) {
    if (r.kind === 'object') touch(r.type, r.key);
    else if (r.edit.type === 'addLink') {
      touch(r.sourceType, r.source);
      touch(r.targetType, r.target);
    }
  }
  const changes = new Map<string, ObjectChange & { type: ObjectTypeRecord }>();
  const idOf = (type: ObjectTypeRecord, key: PrimaryKey) => `${type.apiName}\u0000${key}`;
  for (const [type, keys] of [...touched].sort(([a], [b]) => (a.apiName < b.apiName ? -1 : 1))) {
    const found = await lockObjects(db, ontology, type, [...keys.values()]);
    for (const [text, key] of keys) {
      const state = found.get(text) ?? null;
      changes.set(idOf(type, key), { type, objectType: type.apiName, primaryKey: key, before: state, after: state });
    }
  }
  const changeOf = (type: ObjectTypeRecord, key: PrimaryKey) => changes.get(idOf(type, key))!;

  // The edits history as one array per column: one INSERT writes it, however many edits.
  const history = { typeIds: [] as string[], keys: [] as string[], edits: [] as object[] };
  const record = (
    change: ObjectChange & { type: ObjectTypeRecord },
    kind: 'create' | 'modify' | 'delete',
    before: OntologyObject | null,
  ) => {
    history.typeIds.push(change.type.id);
    history.keys.push(String(change.primaryKey));
    history.edits.push({ type: kind, before, after: change.after });
  };

  for (let i = 0; i < resolved.length; i++) {
    const r = resolved[i]!;
    if (r.kind === 'link') {
      await writeLink(db, r, (type, key) => changeOf(type, key).after !== null);
      continue;
    }
    const { type, key, edit } = r;
    const change = changeOf(type, key);
    const before = change.after;
    const table = objectTable(ontology, type);
    const run = editRun(resolved, i, (t, k) => changeOf(t, k).after !== null);
    if (run.length > 1) {
      // Creates of new objects, or modifies of stored ones, of one type with the same properties
      // (imports, syncs): one statement for the run, each column's values one array parameter.
      const names = Object.keys((run[0]!.edit as CreateEdit | ModifyEdit).properties);
      const columns = names.map((n) =>
        columnValues(
          type.properties[n]!,
          run.map((c) => (c.edit as CreateEdit | ModifyEdit).properties[n]),
        ),
      );
      const rows =
        edit.type === 'create'
          ? await sql<Record<string, unknown>>`INSERT INTO ${table} (${sql.join(names.map((n) => sql.id(n)))})
              SELECT * FROM unnest(${sql.join(columns)}) RETURNING ${returningObject(type)}`.execute(db)
          : await updateRun(db, table, type, names, columns, run);
      const written = new Map(rows.rows.map((row) => [String(row[type.primaryKey]), toApiObject(type, row)]));
      for (const c of run) {
        const made = changeOf(type, c.key);
        const was = made.after;
        made.after = written.get(String(c.key))!;
        record(made, edit.type as 'create' | 'modify', was);
      }
      i += run.length - 1;
      continue;
    }
    if (edit.type === 'create') {
      if (before) {
        throw new DomainError('conflict', `${type.apiName} ${key} exists already.`, {
          details: { errorName: 'ObjectAlreadyExists', objectType: type.apiName, primaryKey: key },
        });
      }
      const names = Object.keys(edit.properties);
      const row = await sql<Record<string, unknown>>`INSERT INTO ${table} (${sql.join(names.map((n) => sql.id(n)))})
        VALUES (${sql.join(names.map((n) => writeValue(type.properties[n]!, edit.properties[n])))}) RETURNING ${returningObject(type)}`.execute(
        db,
      );
      change.after = toApiObject(type, row.rows[0]!);
      record(change, 'create', null);
      continue;
    }
    if (!before) throw notFound(type, key);
    checkRev(type, key, before, edit.ifRev);
    if (edit.type === 'modify') {
      const sets = Object.entries(edit.properties).map(([n, v]) => sql`${sql.id(n)} = ${writeValue(type.properties[n]!, v)}`);
      const row = await sql<Record<string, unknown>>`UPDATE ${table}
        SET ${sql.join([...sets, sql`${sql.id(REV)} = ${sql.id(REV)} + 1`, sql`${sql.id(UPDATED_AT)} = now()`])}
        WHERE ${sql.id(type.primaryKey)} = ${key} RETURNING ${returningObject(type)}`.execute(db);
      change.after = toApiObject(type, row.rows[0]!);
      record(change, 'modify', before);
    } else {
      await sql`DELETE FROM ${table} WHERE ${sql.id(type.primaryKey)} = ${key}`.execute(db);
      await deleteLinksOf(db, ontology, type, key);
      change.after = null;
      record(change, 'delete', before);
    }
  }

  if (history.edits.length > 0) {
    // The edits go as one JSON array, not an array literal of JSON texts (which escapes every quote
    // of every edit), into a json column (stored as written, not converted to jsonb: stop 36).
    await sql`INSERT INTO ontology_edits (object_type_id, primary_key, operation_id, action_type_rid, account_id, edit)
      SELECT h.type_id, h.key, ${input.operationId}, ${input.actionTypeRid}, ${input.accountId}, h.edit
      FROM ROWS FROM (unnest(${history.typeIds}::text[]), unnest(${history.keys}::text[]), json_array_elements(${JSON.stringify(history.edits)}::json))
        AS h(type_id, key, edit)`.execute(db);
  }
  // An object created or deleted changed without comparing its states (a sync's page creates thousands).
  const changed = [...changes.values()].filter((c) =>
    c.before === null || c.after === null ? c.before !== c.after : JSON.stringify(c.before) !== JSON.stringify(c.after),
  );
  const slots = changed.flatMap(attachmentSlots);
  if (slots.length > 0) await syncAttachmentLinks(db, input.companyId, input.at ?? new Date(), slots);
  let seq: WriteEditsResult['seq'] = null;
  if (changed.length > 0) {
    // One change row per changed object, in one statement; the caller is told the range of their sequence numbers.
    const range = await sql<{ from: string; to: string }>`WITH written AS (
        INSERT INTO ontology_changes (company_id, object_type_id, primary_key, state)
        SELECT ${input.companyId}, c.type_id, c.key, c.state
        FROM unnest(${changed.map((c) => c.type.id)}::text[], ${changed.map((c) => String(c.primaryKey))}::text[],
          ${changed.map((c): ChangeState => (c.after ? 'ADDED_OR_UPDATED' : 'REMOVED'))}::text[]) AS c(type_id, key, state)
        RETURNING seq)
      SELECT min(seq) AS "from", max(seq) AS "to" FROM written`.execute(db);
    seq = { from: Number(range.rows[0]!.from), to: Number(range.rows[0]!.to) };
    await sql`SELECT pg_notify(${ONTOLOGY_CHANGES_CHANNEL}, ${input.companyId})`.execute(db);
    await enqueue(db, {
      topic: 'ontology.changed',
      key: input.operationId,
      payload: {
        companyId: input.companyId,
        objectTypes: [...new Set(changed.map((c) => c.objectType))].sort(),
        fromSeq: seq.from,
        toSeq: seq.to,
      },
    });
  }
  return { objects: changed.map(({ type: _type, ...c }) => c), seq };
}

const attachmentRidOf = (object: OntologyObject | null, property: string) =>
  (object?.[property] as { rid?: string } | undefined)?.rid ?? null;

/** The attachment properties a change set, cleared or dropped with its object: the links to keep in step. */
function attachmentSlots(c: ObjectChange & { type: ObjectTypeRecord }): AttachmentSlot[] {
  return Object.entries(c.type.properties)
    .filter(([, p]) => p.dataType.type === 'attachment')
    .map(([property]) => ({
      objectTypeId: c.type.id,
      primaryKey: String(c.primaryKey),
      property,
      before: attachmentRidOf(c.before, property),
      rid: attachmentRidOf(c.after, property),
    }))
    .filter((slot) => slot.before !== slot.rid)
    .map(({ before: _before, ...slot }) => slot);
}

type CreateEdit = Extract<Edit, { type: 'create' }>;
type ModifyEdit = Extract<Edit, { type: 'modify' }>;
type ResolvedObject = Extract<Resolved, { kind: 'object' }>;

/**
 * The creates or the modifies from `start` that one statement may write: same type, same
 * properties, each key once; creates of objects that do not exist, modifies without `ifRev` of
 * objects that do (anything else keeps its own statement, and its own error).
 */
function editRun(
  resolved: readonly Resolved[],
  start: number,
  exists: (type: ObjectTypeRecord, key: PrimaryKey) => boolean,
): ResolvedObject[] {
  const first = resolved[start] as ResolvedObject;
  const kind = first.edit.type;
  if (kind === 'delete') return [];
  const shapeOf = (r: ResolvedObject) =>
    Object.keys((r.edit as CreateEdit | ModifyEdit).properties)
      .sort()
      .join('\u0000');
  const shape = shapeOf(first);
  const keys = new Set<string>();
  const run: ResolvedObject[] = [];
  for (let j = start; j < resolved.length; j++) {
    const r = resolved[j]!;
    if (r.kind !== 'object' || r.edit.type !== kind || r.type !== first.type) break;
    const fits = r.edit.type === 'create' ? !exists(r.type, r.key) : exists(r.type, r.key) && r.edit.ifRev === undefined;
    if (!fits || shapeOf(r) !== shape || keys.has(String(r.key))) break;
    keys.add(String(r.key));
    run.push(r);
  }
  return run;
}

/** The modifies of a run as one UPDATE joined to the arrays of their keys and values (aliases start with `__`, which no property name does). */
function updateRun(
  db: DbOrTrx,
  table: ReturnType<typeof objectTable>,
  type: ObjectTypeRecord,
  names: readonly string[],
  columns: readonly Expression<unknown>[],
  run: readonly ResolvedObject[],
) {
  const keys = columnValues(
    type.properties[type.primaryKey]!,
    run.map((c) => c.key),
  );
  const aliases = names.map((_, j) => `__v${j}`);
  const sets = names.map((n, j) => sql`${sql.id(n)} = ${sql.ref(`u.${aliases[j]}`)}`);
  return sql<Record<string, unknown>>`UPDATE ${table}
    SET ${sql.join([...sets, sql`${sql.id(REV)} = ${sql.id(REV)} + 1`, sql`${sql.id(UPDATED_AT)} = now()`])}
    FROM unnest(${sql.join([keys, ...columns])}) AS u(${sql.join(['__k', ...aliases].map((a) => sql.id(a)))})
    WHERE ${sql.id(type.primaryKey)} = u.__k RETURNING ${returningObject(type)}`.execute(db);
}

type Resolved =
  | { kind: 'object'; edit: Extract<Edit, { objectType: string }>; type: ObjectTypeRecord; key: PrimaryKey }
  | {
      kind: 'link';
      edit: Extract<Edit, { type: 'addLink' | 'removeLink' }>;
      link: LinkTypeRecord;
      sourceType: ObjectTypeRecord;
      targetType: ObjectTypeRecord;
      source: PrimaryKey;
      target: PrimaryKey;
    };

/** Checks an edit against the definitions (types, properties, values, keys) before anything is locked or written. */
function resolve(
  types: ReadonlyMap<string, ObjectTypeRecord>,
  linkTypes: ReadonlyMap<string, LinkTypeRecord>,
  edit: Edit,
  index: number,
): Resolved {
  if (edit.type === 'addLink' || edit.type === 'removeLink') {
    const link = linkTypes.get(edit.linkType);
    if (!link)
      throw new DomainError('link_type_not_found', `No link type ${edit.linkType}.`, { details: { linkType: edit.linkType, edit: index } });
    const sourceType = types.get(link.source.objectType)!;
    const targetType = types.get(link.target.objectType)!;
    return {
      kind: 'link',
      edit,
      link,
      sourceType,
      targetType,
      source: keyOf(sourceType, edit.source, index, '.source'),
      target: keyOf(targetType, edit.target, index, '.target'),
    };
  }
  const type = types.get(edit.objectType);
  if (!type)
    throw new DomainError('object_type_not_found', `No object type ${edit.objectType}.`, {
      details: { objectType: edit.objectType, edit: index },
    });
  if (edit.type === 'create') {
    checkProperties(type, edit.properties, index, true);
    return {
      kind: 'object',
      edit,
      type,
      key: keyOf(type, ownValue(edit.properties, type.primaryKey), index, `.properties.${type.primaryKey}`),
    };
  }
  if (edit.type === 'modify') checkProperties(type, edit.properties, index, false);
  return { kind: 'object', edit, type, key: keyOf(type, edit.primaryKey, index, '.primaryKey') };
}

async function deleteLinksOf(db: DbOrTrx, ontology: OntologyRecord, type: ObjectTypeRecord, key: PrimaryKey) {
  const links = await db
    .selectFrom('link_types')
    .select(['id', 'source_type_id', 'target_type_id'])
    .where('ontology_id', '=', ontology.id)
    .where((eb) => eb.or([eb('source_type_id', '=', type.id), eb('target_type_id', '=', type.id)]))
    .execute();
  for (const l of links) {
    await db
      .deleteFrom('object_links')
      .where('link_type_id', '=', l.id)
      .where((eb) =>
        eb.or([
          ...(l.source_type_id === type.id ? [eb('source_key', '=', String(key))] : []),
          ...(l.target_type_id === type.id ? [eb('target_key', '=', String(key))] : []),
        ]),
      )
      .execute();
  }
}

async function writeLink(
  db: DbOrTrx,
  r: Extract<Resolved, { kind: 'link' }>,
  exists: (type: ObjectTypeRecord, key: PrimaryKey) => boolean,
): Promise<void> {
  const { link } = r;
  const row = { link_type_id: link.id, source_key: String(r.source), target_key: String(r.target) };
  if (r.edit.type === 'removeLink') {
    await db
      .deleteFrom('object_links')
      .where('link_type_id', '=', link.id)
      .where('source_key', '=', row.source_key)
      .where('target_key', '=', row.target_key)
      .execute();
    return;
  }
  if (!exists(r.sourceType, r.source)) throw notFound(r.sourceType, r.source);
  if (!exists(r.targetType, r.target)) throw notFound(r.targetType, r.target);
  // Cardinality ONE on a side: one object of that side links to at most one of the other (both
  // objects are locked, so two writers cannot both pass this check).
  for (const [side, mine, other] of [
    ['source', 'source_key', 'target_key'],
    ['target', 'target_key', 'source_key'],
  ] as const) {
    if (link[side].cardinality !== 'ONE') continue;
    const taken = await db
      .selectFrom('object_links')
      .select('source_key')
      .where('link_type_id', '=', link.id)
      .where(mine, '=', row[mine])
      .where(other, '<>', row[other])
      .executeTakeFirst();
    if (taken) {
      throw new DomainError('conflict', `${link[side].objectType} ${row[mine]} already has its one ${link[side].linkApiName} link.`, {
        details: { errorName: 'LinkCardinalityExceeded', linkType: link.apiName, side },
      });
    }
  }
  await db
    .insertInto('object_links')
    .values(row)
    .onConflict((c) => c.doNothing())
    .execute();
}
