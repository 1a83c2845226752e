import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import { policyAttributesOf } from '../accounts/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { PrincipalCache } from '../keys/index.ts';
import { clearanceOf } from '../markings/index.ts';
import { attributeMap, type Gate, meetsGate, NOBODY, type PolicyGates, type PolicySubject, policyGates } from '../policy/index.ts';
import { objectTable, REV, UPDATED_AT } from './object-tables.ts';
import type { ObjectTypeRecord, OntologyRecord } from './repository.ts';

// Object and property security policies on the read side: the policy's gates (domain/policy
// object-security.ts) become where clauses and CASE expressions of one derived table that stands
// for the type's table in every read (search, list, get, aggregates and their counts, object sets,
// links, exports, subscriptions), so a hidden object is in no row, count or match, and a nulled
// property is null before any filter, order or aggregate sees it. PostgreSQL inlines the derived
// table, so the gate is a plain where clause on the base table's indexes.

/** The principal as a company's policies judge it: its clearance and its user attributes (derived, and the company's custom ones). */
export async function policySubjectOf(
  deps: { db: DbOrTrx; principals?: PrincipalCache | undefined },
  accountId: string,
  companyId: string,
  now: Date,
): Promise<PolicySubject> {
  const [clearance, attributes] = await Promise.all([clearanceOf(deps, accountId, now), policyAttributesOf(deps.db, accountId, companyId)]);
  return { clearance, attributes: attributeMap(attributes) };
}

/** The types with the gates their policies set for `subject` (types without a policy as they are). */
export function withGates(types: readonly ObjectTypeRecord[], subject: PolicySubject): ObjectTypeRecord[] {
  return types.map((t) => (t.security ? { ...t, gates: policyGates(t.security, subject) } : t));
}

/** The gates a read applies: the caller's, or nobody's when the type has a policy and none were set. */
export const gatesOf = (type: ObjectTypeRecord): PolicyGates | null =>
  type.gates ?? (type.security ? policyGates(type.security, NOBODY) : null);

/**
 * A gate as SQL over the row `alias`. A comparison with a property that is not (or no longer) a
 * string never holds: the policy fails closed rather than the statement failing.
 */
function gateSql(type: ObjectTypeRecord, gate: Gate, alias: string): Expression<SqlBool> {
  if (typeof gate === 'boolean') return sql<SqlBool>`${sql.raw(String(gate))}`;
  const terms = gate.map((t) =>
    type.properties[t.property]?.dataType.type === 'string'
      ? sql<SqlBool>`(${sql.ref(`${alias}.${t.property}`)} = ANY(${[...t.values]}::text[]))`
      : sql<SqlBool>`false`,
  );
  return sql<SqlBool>`(${sql.join(terms, sql` AND `)})`;
}

/**
 * `(SELECT <each column, nulled where its gate fails> FROM <from> WHERE <object gate>)`, over any
 * source of the type's rows aliased `t` (its table, or states read back as its rows).
 */
export function policedRows(type: ObjectTypeRecord, gates: PolicyGates, from: RawBuilder<unknown>): RawBuilder<unknown> {
  const columns = Object.keys(type.properties).map((name) => {
    const gate = gates.properties.get(name);
    const ref = sql.ref(`t.${name}`);
    return gate === undefined || gate === true
      ? sql`${ref} AS ${sql.id(name)}`
      : sql`CASE WHEN ${gateSql(type, gate, 't')} THEN ${ref} END AS ${sql.id(name)}`;
  });
  return sql`(SELECT ${sql.join([...columns, sql.ref(`t.${REV}`), sql.ref(`t.${UPDATED_AT}`)])} FROM ${from} WHERE ${gateSql(type, gates.object, 't')})`;
}

/** What a read selects from for the type (alias it): its table, through its policy's gates when it has one. */
export function readSource(ontology: Pick<OntologyRecord, 'schemaName'>, type: ObjectTypeRecord): RawBuilder<unknown> {
  const gates = gatesOf(type);
  const table = objectTable(ontology, type);
  return gates ? policedRows(type, gates, sql`${table} AS t`) : sql`${table}`;
}

/** Whether the policy leaves the caller every object and property (nothing to filter, e.g. in ontology SQL). */
export function unrestricted(type: ObjectTypeRecord): boolean {
  const gates = gatesOf(type);
  return gates === null || (gates.object === true && [...gates.properties.values()].every((g) => g === true));
}

/** `$svc$…$svc$` with a tag the value does not hold: a literal whatever the session's string settings. */
function dollarQuoted(value: string): string {
  let tag = '$svc$';
  for (let n = 0; value.includes(tag); n++) tag = `$svc${n}$`;
  return `${tag}${value}${tag}`;
}

/**
 * The type's rows as the caller may read them, as self-contained SQL text (the attribute values
 * inlined as literals) that ontology SQL puts where the query names the table: the same derived
 * table every other read selects from. Null when the policies leave the caller everything.
 */
export function policedSelectSql(db: DbOrTrx, ontology: Pick<OntologyRecord, 'schemaName'>, type: ObjectTypeRecord): string | null {
  const gates = gatesOf(type);
  if (!gates || unrestricted(type)) return null;
  const compiled = policedRows(type, gates, sql`${objectTable(ontology, type)} AS t`).compile(db);
  // OFFSET 0 keeps PostgreSQL from merging the derived table into the query or pushing the query's
  // conditions into it: a condition that fails (1/0 on a value) is then never tried on a hidden row,
  // so an error cannot tell what the gate hides (as a security_barrier view).
  const fenced = `${compiled.sql.slice(0, -1)} OFFSET 0)`;
  // The only parameters are the gates' lists of attribute values (text[]); names never hold `$` (their patterns).
  return fenced.replace(/\$(\d+)/g, (_, n: string) => {
    const values = compiled.parameters[Number(n) - 1];
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'string'))
      throw new Error(`unexpected parameter $${n} in a policed table`);
    return `ARRAY[${values.map(dollarQuoted).join(', ')}]::text[]`;
  });
}

/** Equal for equal gates: subscriptions judged once per batch share it only when they see alike. */
export function gatesKey(type: ObjectTypeRecord): string {
  const gates = gatesOf(type);
  return gates ? JSON.stringify([gates.object, [...gates.properties]]) : '';
}

/** An object with the properties its gates null for the caller left out (the API omits nulls), as the SQL form reads them. */
export function withoutNulled<T extends Record<string, unknown>>(type: ObjectTypeRecord, object: T): T {
  const gates = gatesOf(type);
  if (!gates || gates.properties.size === 0) return object;
  const values = new Map(Object.entries(object));
  const out = { ...object };
  for (const [name, gate] of gates.properties) if (!meetsGate(gate, values)) delete out[name];
  return out;
}

/**
 * A stored state of an object (an edit's before or after) as the caller may see it, judged by the
 * same gates in memory: null when its object gate fails, its nulled properties left out otherwise.
 */
export function visibleState<T extends Record<string, unknown>>(type: ObjectTypeRecord, state: T | null): T | null {
  const gates = gatesOf(type);
  if (!gates || state === null) return state;
  return meetsGate(gates.object, new Map(Object.entries(state))) ? withoutNulled(type, state) : null;
}
