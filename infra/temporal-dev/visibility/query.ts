// Temporal's SQL-like visibility query language over rows of any kind (workflow runs, scheduler
// workflows, standalone activities): comparisons (= != > >= < <=), IN, BETWEEN, STARTS_WITH,
// IS [NOT] NULL, AND/OR/parentheses, ORDER BY (ignored; newest first) and Count's GROUP BY
// ExecutionStatus, with Temporal's rules on the literals and operators each attribute type takes.
// Like Temporal, rows in a namespace division (TemporalNamespaceDivision set) only match queries that name it.
import { IndexedValueType } from '../common/enums.ts';
import { invalidArgument } from '../common/errors.ts';
import type { Msg } from '../common/proto.ts';
import { BUILT_IN_ATTRIBUTES, type Registered, typeName } from '../common/search-attributes.ts';
import { parseGoDuration } from '../common/time.ts';

export type Value = string | number | boolean | null | Value[];

/** One visibility record: a workflow run, or a schedule's scheduler workflow. */
export interface VisibilityRow {
  /** A search attribute's value (system or custom) as queries compare it; null when unset. */
  value(field: string): Value;
  /** The WorkflowExecutionInfo that List returns. */
  info(): Msg;
}

export function searchAttributeKeys(server: Registered): Record<string, number> {
  return { ...BUILT_IN_ATTRIBUTES, ...Object.fromEntries(server.searchAttributeTypes) };
}

export function isSystemSearchAttribute(name: string): boolean {
  return BUILT_IN_ATTRIBUTES[name] !== undefined;
}

/** The rows matching a visibility query, in the given order. */
export function queryRows<R extends VisibilityRow>(server: Registered, rows: R[], query: string, extra?: Record<string, number>): R[] {
  return rows.filter(parseQuery(server, query, extra).predicate);
}

/** Offset paging as List calls do it (the token is the offset of the next page). */
export function pageOf<T>(
  items: T[],
  token: Uint8Array | null | undefined,
  pageSize: number | null | undefined,
): { page: T[]; nextPageToken?: Buffer } {
  const offset = token?.length ? Number(Buffer.from(token).toString('utf8')) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw invalidArgument('Invalid NextPageToken.');
  const page = items.slice(offset, offset + (pageSize || 1000));
  const next = offset + page.length;
  return { page, nextPageToken: next < items.length ? Buffer.from(String(next)) : undefined };
}

/** Decodes a search attribute payload (json/plain) into a comparable value. */
export function payloadValue(payload: Msg | undefined): Value {
  if (!payload?.data?.length) return null;
  try {
    return JSON.parse(Buffer.from(payload.data).toString('utf8')) as Value;
  } catch {
    return null;
  }
}

// ---- query parser ----

type Predicate = (row: VisibilityRow) => boolean;
type Token = { kind: 'word' | 'string' | 'number' | 'op' | 'punct'; text: string };

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:(`[^`]*`|[A-Za-z_][A-Za-z0-9_]*)|('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?)|(!=|<>|>=|<=|=|>|<)|([(),]))/y;
  let pos = 0;
  while (pos < query.length) {
    if (/^\s*$/.test(query.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(query);
    if (!m) throw invalidArgument(`invalid query: unexpected input at "${query.slice(pos, pos + 20)}"`);
    pos = re.lastIndex;
    if (m[1]) tokens.push({ kind: 'word', text: m[1].replace(/`/g, '') });
    else if (m[2]) tokens.push({ kind: 'string', text: m[2].slice(1, -1).replace(/\\(.)/g, '$1') });
    else if (m[3]) tokens.push({ kind: 'number', text: m[3] });
    else if (m[4]) tokens.push({ kind: 'op', text: m[4] === '<>' ? '!=' : m[4] });
    else if (m[5]) tokens.push({ kind: 'punct', text: m[5] });
  }
  return tokens;
}

/** `extra`: attributes (name to IndexedValueType) the rows have besides the search attributes (standalone activities' ActivityId...). */
export function parseQuery(server: Registered, query: string, extra?: Record<string, number>): { predicate: Predicate; groupBy?: string } {
  const tokens = tokenize(query);
  let i = 0;
  const peek = () => tokens[i];
  const isWord = (w: string) => peek()?.kind === 'word' && peek()!.text.toUpperCase() === w;
  const expectWord = (w: string) => {
    if (!isWord(w)) throw invalidArgument(`invalid query: expected ${w}`);
    i++;
  };
  const expectPunct = (p: string) => {
    if (peek()?.text !== p) throw invalidArgument(`invalid query: expected "${p}"`);
    i++;
  };
  const known = { ...searchAttributeKeys(server), ...extra };

  const literal = (field: string): Value => {
    const t = tokens[i++];
    if (!t) throw invalidArgument('invalid query: missing value');
    let v: Value;
    if (t.kind === 'string') v = t.text;
    else if (t.kind === 'number') v = Number(t.text);
    else if (t.kind === 'word' && /^(true|false)$/i.test(t.text)) v = t.text.toLowerCase() === 'true';
    else throw invalidArgument(`invalid query: unexpected "${t.text}"`);
    if (field === 'ExecutionDuration' && typeof v === 'string') return executionDurationNanos(v);
    return typedLiteral(field, known[field]!, v, t.kind === 'number' && t.text.includes('.'));
  };

  const comparison = (): Predicate => {
    const f = tokens[i++];
    if (f?.kind !== 'word') throw invalidArgument('invalid query: expected a search attribute name');
    const field = f.text;
    const type = known[field];
    if (type === undefined) throw invalidArgument(`invalid query: unknown search attribute ${field}`);
    const get = (e: VisibilityRow): Value => normalize(e.value(field), type);
    const allow = (operator: string) => {
      if (!operatorAllowed(type, operator)) {
        throw invalidArgument(
          `invalid query: operation is not supported: operator '${operator}' not supported for ${typeName(type)} type search attribute '${field}'`,
        );
      }
    };
    // Keyword lists match a value they contain; text matches a value whose words it contains.
    const equal = (actual: Value, expected: Value): boolean =>
      type === IndexedValueType.TEXT ? containsWords(actual, expected) : matches(actual, '=', expected);
    if (isWord('IS')) {
      i++;
      const negate = isWord('NOT');
      if (negate) i++;
      expectWord('NULL');
      return (e) => (get(e) === null) !== negate;
    }
    const negated = isWord('NOT');
    if (negated) i++;
    if (isWord('IN')) {
      i++;
      allow(negated ? 'NOT IN' : 'IN');
      expectPunct('(');
      const values: Value[] = [literal(field)];
      while (peek()?.text === ',') {
        i++;
        values.push(literal(field));
      }
      expectPunct(')');
      return (e) => values.some((v) => equal(get(e), v)) !== negated;
    }
    if (isWord('BETWEEN')) {
      i++;
      allow(negated ? 'NOT BETWEEN' : 'BETWEEN');
      const low = literal(field);
      expectWord('AND');
      const high = literal(field);
      return (e) => (matches(get(e), '>=', low) && matches(get(e), '<=', high)) !== negated;
    }
    if (negated) throw invalidArgument('invalid query: NOT must precede IN or BETWEEN');
    if (isWord('STARTS_WITH')) {
      i++;
      allow('STARTS_WITH');
      const prefix = literal(field);
      return (e) => {
        const v = get(e);
        return typeof v === 'string' && typeof prefix === 'string' && v.startsWith(prefix);
      };
    }
    const op = tokens[i++];
    if (op?.kind !== 'op') throw invalidArgument(`invalid query: expected an operator after ${field}`);
    allow(op.text);
    const value = literal(field);
    if (op.text === '=') return (e) => equal(get(e), value);
    if (op.text === '!=' && (type === IndexedValueType.TEXT || type === IndexedValueType.KEYWORD_LIST)) {
      return (e) => !equal(get(e), value);
    }
    return (e) => matches(get(e), op.text, value);
  };

  const primary = (): Predicate => {
    if (peek()?.text === '(') {
      i++;
      const p = orExpr();
      expectPunct(')');
      return p;
    }
    return comparison();
  };
  const andExpr = (): Predicate => {
    const parts = [primary()];
    while (isWord('AND')) {
      i++;
      parts.push(primary());
    }
    return (e) => parts.every((p) => p(e));
  };
  const orExpr = (): Predicate => {
    const parts = [andExpr()];
    while (isWord('OR')) {
      i++;
      parts.push(andExpr());
    }
    return (e) => parts.some((p) => p(e));
  };

  let predicate: Predicate = () => true;
  if (peek() && !isWord('ORDER') && !isWord('GROUP')) predicate = orExpr();
  if (!tokens.some((t) => t.kind === 'word' && t.text === 'TemporalNamespaceDivision')) {
    const matchesQuery = predicate;
    predicate = (row) => row.value('TemporalNamespaceDivision') === null && matchesQuery(row);
  }
  let groupBy: string | undefined;
  if (isWord('GROUP')) {
    i++;
    expectWord('BY');
    const g = tokens[i++];
    if (g?.text !== 'ExecutionStatus') throw invalidArgument('invalid query: only GROUP BY ExecutionStatus is supported');
    groupBy = g.text;
  }
  if (isWord('ORDER')) {
    // Ordering is accepted for compatibility; results are always newest first.
    i++;
    expectWord('BY');
    while (peek() && peek()!.kind !== 'op') i++;
  }
  if (i < tokens.length) throw invalidArgument(`invalid query: unexpected "${tokens[i]!.text}"`);
  return groupBy ? { predicate, groupBy } : { predicate };
}

/** Operators Temporal's query converter allows per attribute type. */
function operatorAllowed(type: number, operator: string): boolean {
  switch (type) {
    case IndexedValueType.KEYWORD:
      return true;
    case IndexedValueType.KEYWORD_LIST:
      return ['=', '!=', 'IN', 'NOT IN'].includes(operator);
    case IndexedValueType.TEXT:
      return operator === '=' || operator === '!=';
    case IndexedValueType.BOOL:
      return !operator.includes('STARTS_WITH') && !operator.includes('BETWEEN');
    default:
      return !operator.includes('STARTS_WITH');
  }
}

/**
 * A literal of the attribute's type, as Temporal's query converter accepts it: numbers for Int and
 * Double, booleans for Bool, strings for the keyword and text types, RFC 3339 strings or Unix
 * nanoseconds for Datetime (returned as epoch ms).
 */
function typedLiteral(field: string, type: number, v: Value, isFloat: boolean): Value {
  const wrongType = () => {
    const goType = typeof v === 'number' ? (isFloat ? 'float64' : 'int64') : typeof v;
    const shown = typeof v === 'string' ? JSON.stringify(v) : String(v);
    return invalidArgument(
      `invalid query: invalid expression: invalid value type for search attribute ${field} of type ${typeName(type)}: ${shown} (type: ${goType})`,
    );
  };
  switch (type) {
    case IndexedValueType.INT:
    case IndexedValueType.DOUBLE:
      if (typeof v !== 'number') throw wrongType();
      return v;
    case IndexedValueType.BOOL:
      if (typeof v !== 'boolean') throw wrongType();
      return v;
    case IndexedValueType.DATETIME: {
      if (typeof v === 'number') return v / 1e6;
      if (typeof v !== 'string') throw wrongType();
      const ms = Date.parse(v);
      if (Number.isNaN(ms)) throw invalidArgument(`invalid query: invalid expression: unable to parse datetime '${v}'`);
      return ms;
    }
    default:
      if (typeof v !== 'string') throw wrongType();
      return v;
  }
}

/**
 * ExecutionDuration compared with a string, as Temporal's converter reads it: integer nanoseconds,
 * a Go duration (`"90s"`, `"1h30m"`; what the Web UI's duration filter sends) or `[d.]hh:mm:ss`.
 */
function executionDurationNanos(text: string): number {
  if (/^-?\d+$/.test(text)) return Number(text);
  const clock = /^(?:(\d+)\.)?(\d+):(\d{2}):(\d{2})$/.exec(text);
  if (clock) return (((Number(clock[1] ?? 0) * 24 + Number(clock[2])) * 60 + Number(clock[3])) * 60 + Number(clock[4])) * 1e9;
  const ms = parseGoDuration(text);
  if (ms === undefined)
    throw invalidArgument(`invalid query: invalid expression: invalid value for search attribute ExecutionDuration: "${text}"`);
  return ms * 1e6;
}

/**
 * A stored value as queries compare it: a one-element list of a type other than KeywordList is its
 * element (the SDK's untyped API sets lists), datetimes are epoch ms.
 */
function normalize(v: Value, type: number): Value {
  let value = v;
  if (Array.isArray(value) && type !== IndexedValueType.KEYWORD_LIST) {
    value = value.length === 0 ? null : value.length === 1 ? value[0]! : value;
  }
  if (type !== IndexedValueType.DATETIME) return value;
  const toMs = (x: Value): Value => (typeof x === 'string' ? Date.parse(x) : x);
  return Array.isArray(value) ? value.map(toMs) : toMs(value);
}

/** Text `=`: every word of the literal is a word of the value (case-insensitive), like a full-text match. */
function containsWords(actual: Value, expected: Value): boolean {
  if (typeof actual !== 'string' || typeof expected !== 'string') return false;
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const have = new Set(words(actual));
  const want = words(expected);
  return want.length > 0 && want.every((w) => have.has(w));
}

function matches(actual: Value, op: string, expected: Value): boolean {
  // Keyword lists match when any element matches.
  if (Array.isArray(actual)) return actual.some((a) => matches(a, op, expected));
  if (actual === null) return op === '!=' ? expected !== null : false;
  switch (op) {
    case '=':
      return actual === expected;
    case '!=':
      return actual !== expected;
    case '>':
      return expected !== null && actual > expected;
    case '>=':
      return expected !== null && actual >= expected;
    case '<':
      return expected !== null && actual < expected;
    case '<=':
      return expected !== null && actual <= expected;
    default:
      throw invalidArgument(`invalid query: unsupported operator ${op}`);
  }
}
