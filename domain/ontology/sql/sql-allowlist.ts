import { fieldsOf, isObject, type Json, type JsonObject } from './parse-tree.ts';
import { type PolicedReference, policedReferences } from './policed-references.ts';
import { AMPLIFIERS_REFUSED, RECURSION_REFUSED, type SqlParameterValue, sizeRefusalOfCall, sizeRefusalOfType } from './sql-size-caps.ts';

// What ontology SQL may contain, decided on PostgreSQL's own parse tree (libpg_query's JSON,
// `{ stmts: [{ stmt: { SelectStmt: {…} } }] }`) before anything reaches the database: exactly one
// SelectStmt, no statement of any other kind anywhere inside it (a writable CTE is a DeleteStmt
// under a CommonTableExpr), no INTO, no FOR UPDATE/SHARE, functions from the list below only,
// relations of the company's schema only, and no reg* casts (they look names up in the catalogs).
// Deny by default: a function or relation not named here is refused, whatever it does. Functions
// whose output size an argument sets, and WITH RECURSIVE, are bounded by sql-size-caps.ts.
// Pure: the parser runs on a worker thread (sql-parser-worker.ts), which calls checkParsedSql.

/** Functions a query may call, unqualified or as pg_catalog.<name>: computation over its own rows only. */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  // aggregates
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'bool_and',
  'bool_or',
  'every',
  'bit_and',
  'bit_or',
  'bit_xor',
  'string_agg',
  'array_agg',
  'json_agg',
  'jsonb_agg',
  'json_object_agg',
  'jsonb_object_agg',
  'json_agg_strict',
  'jsonb_agg_strict',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'corr',
  'covar_pop',
  'covar_samp',
  'regr_slope',
  'regr_intercept',
  'regr_r2',
  'regr_count',
  'regr_avgx',
  'regr_avgy',
  'percentile_cont',
  'percentile_disc',
  'mode',
  'any_value',
  // window functions
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
  // numbers
  'abs',
  'ceil',
  'ceiling',
  'floor',
  'round',
  'trunc',
  'sign',
  'sqrt',
  'cbrt',
  'power',
  'pow',
  'exp',
  'ln',
  'log',
  'log10',
  'mod',
  'div',
  'gcd',
  'lcm',
  'pi',
  'degrees',
  'radians',
  'width_bucket',
  'scale',
  'random',
  'factorial',
  'sin',
  'cos',
  'tan',
  'asin',
  'acos',
  'atan',
  'atan2',
  'num_nulls',
  'num_nonnulls',
  // text
  'length',
  'char_length',
  'character_length',
  'octet_length',
  'bit_length',
  'lower',
  'upper',
  'initcap',
  'btrim',
  'ltrim',
  'rtrim',
  'substr',
  'substring',
  'position',
  'strpos',
  'replace',
  'translate',
  'split_part',
  'concat',
  'concat_ws',
  'left',
  'right',
  'lpad',
  'rpad',
  'reverse',
  'starts_with',
  'format',
  'overlay',
  'md5',
  'sha256',
  'encode',
  'decode',
  'ascii',
  'chr',
  'regexp_replace',
  'regexp_match',
  'regexp_matches',
  'regexp_like',
  'regexp_count',
  'regexp_instr',
  'regexp_substr',
  'regexp_split_to_array',
  'regexp_split_to_table',
  'similar_to_escape',
  'like_escape',
  'quote_literal',
  'quote_nullable',
  'to_hex',
  'normalize',
  'is_normalized',
  'unistr',
  'string_to_array',
  'string_to_table',
  // dates and times
  'now',
  'current_timestamp',
  'statement_timestamp',
  'transaction_timestamp',
  'clock_timestamp',
  'timeofday',
  'date_trunc',
  'date_part',
  'date_bin',
  'extract',
  'age',
  'make_date',
  'make_time',
  'make_timestamp',
  'make_timestamptz',
  'make_interval',
  'justify_days',
  'justify_hours',
  'justify_interval',
  'isfinite',
  'timezone',
  'overlaps',
  'to_char',
  'to_date',
  'to_timestamp',
  'to_number',
  'date_add',
  'date_subtract',
  // JSON
  'to_json',
  'to_jsonb',
  'row_to_json',
  'array_to_json',
  'json_build_object',
  'jsonb_build_object',
  'json_build_array',
  'jsonb_build_array',
  'json_object',
  'jsonb_object',
  'json_array_length',
  'jsonb_array_length',
  'json_typeof',
  'jsonb_typeof',
  'json_array_elements',
  'jsonb_array_elements',
  'json_array_elements_text',
  'jsonb_array_elements_text',
  'json_each',
  'jsonb_each',
  'json_each_text',
  'jsonb_each_text',
  'json_object_keys',
  'jsonb_object_keys',
  'json_extract_path',
  'jsonb_extract_path',
  'json_extract_path_text',
  'jsonb_extract_path_text',
  'jsonb_strip_nulls',
  'json_strip_nulls',
  'jsonb_set',
  'jsonb_insert',
  'jsonb_path_exists',
  'jsonb_path_match',
  'jsonb_path_query',
  'jsonb_path_query_array',
  'jsonb_path_query_first',
  'jsonb_contains',
  'jsonb_exists',
  // arrays and sets
  'array_length',
  'cardinality',
  'array_upper',
  'array_lower',
  'array_ndims',
  'array_position',
  'array_positions',
  'array_remove',
  'array_replace',
  'array_append',
  'array_prepend',
  'array_cat',
  'array_to_string',
  'trim_array',
  'array_reverse',
  'array_sort',
  'unnest',
  'generate_series',
  'generate_subscripts',
  // text search
  'to_tsvector',
  'to_tsquery',
  'plainto_tsquery',
  'phraseto_tsquery',
  'websearch_to_tsquery',
  'ts_rank',
  'ts_rank_cd',
  'ts_headline',
  // other
  'gen_random_uuid',
  'uuidv4',
  'uuidv7',
  'coalesce',
  'nullif',
  'greatest',
  'least',
  'grouping',
]);

/**
 * Fields that hold a node of one fixed type without the `{ Type: … }` wrapper around it (a cast's
 * `typeName`, a statement's `relation`): checked as that type.
 */
const UNWRAPPED: Readonly<Record<string, string>> = {
  typeName: 'TypeName',
  relation: 'RangeVar',
  rel: 'RangeVar',
  // The branches of UNION / INTERSECT / EXCEPT: without this, `SELECT 1 INTO t UNION SELECT 2` passed.
  larg: 'SelectStmt',
  rarg: 'SelectStmt',
};

/** TABLESAMPLE methods that are built in (any other is an extension's function). */
const SAMPLE_METHODS = new Set(['bernoulli', 'system']);

export interface SqlRefusal {
  /** `details.errorName` of the query_invalid answer. */
  errorName:
    | 'NotAQuery'
    | 'FunctionNotAllowed'
    | 'RelationNotAllowed'
    | 'TypeNotAllowed'
    | 'OperatorNotAllowed'
    | 'UnboundedSize'
    | 'RecursionNotAllowed';
  message: string;
  /** 1-based character position of the refused part, when the parser gave one. */
  position?: number;
}

/** libpg_query's parse result, read as plain JSON. */
type ParseTree = { stmts?: readonly unknown[] };

/** Names in the tree are lists of `{ String: { sval } }`. */
const names = (v: Json | undefined): string[] =>
  Array.isArray(v) ? v.map((n) => (isObject(n) && isObject(n.String) && typeof n.String.sval === 'string' ? n.String.sval : '')) : [];
const quoted = (parts: string[]) => parts.map((p) => JSON.stringify(p)).join('.');

/** What a query is checked against: the company's schema (the only one a relation may name) and the request's parameters ($n). */
interface CheckContext {
  schemaName: string;
  parameters: readonly SqlParameterValue[];
}

/** Refusals for size, not access: the walk goes on after one, so that what touches access is named first whatever the order. */
const SIZE_REFUSALS: ReadonlySet<SqlRefusal['errorName']> = new Set(['UnboundedSize', 'RecursionNotAllowed']);

/**
 * The refusal of a parsed statement list, or undefined when it may run. Iterative, so its stack
 * does not depend on the tree's depth; the work is linear in the tree, which is linear in the text.
 */
export function checkParsedSql(tree: ParseTree, text: string, context: CheckContext): SqlRefusal | undefined {
  const stmts = (tree.stmts ?? []) as Json[];
  if (stmts.length !== 1) {
    return {
      errorName: 'NotAQuery',
      message:
        stmts.length === 0
          ? 'The text holds no statement: send one SELECT.'
          : `Send one SELECT: the text holds ${stmts.length} statements.`,
    };
  }
  const top = stmts[0];
  const stmt = isObject(top) && isObject(top.stmt) ? top.stmt : {};
  const kind = Object.keys(stmt)[0] ?? 'nothing';
  if (kind !== 'SelectStmt') return { errorName: 'NotAQuery', message: `Only a SELECT may run here, not ${statementName(kind)}.` };

  let sizeRefusal: SqlRefusal | undefined;
  for (const [key, child] of fieldsOf(stmt)) {
    const kind = /^[A-Z]/.test(key) ? key : UNWRAPPED[key];
    if (kind !== undefined && isObject(child)) {
      const refusal = checkNode(kind, child, context);
      if (refusal && !SIZE_REFUSALS.has(refusal.errorName)) return withPosition(refusal, child, text);
      if (refusal) sizeRefusal ??= withPosition(refusal, child, text);
    }
  }
  return sizeRefusal;
}

function checkNode(kind: string, node: JsonObject, { schemaName, parameters }: CheckContext): SqlRefusal | undefined {
  if (kind.endsWith('Stmt') && kind !== 'SelectStmt') {
    return {
      errorName: 'NotAQuery',
      message: `Only a SELECT may run here: the query contains ${statementName(kind)} (a writable CTE, for example).`,
    };
  }
  switch (kind) {
    case 'SelectStmt':
      if (node.intoClause) return { errorName: 'NotAQuery', message: 'SELECT … INTO writes a table: not allowed here.' };
      if (node.lockingClause) return { errorName: 'NotAQuery', message: 'FOR UPDATE / FOR SHARE takes row locks: not allowed here.' };
      if (isObject(node.withClause) && node.withClause.recursive === true)
        return { errorName: 'RecursionNotAllowed', message: RECURSION_REFUSED };
      return undefined;
    case 'FuncCall': {
      const name = names(node.funcname);
      const bare = name.length === 2 && name[0] === 'pg_catalog' ? name[1]! : name.length === 1 ? name[0]! : undefined;
      if (bare !== undefined && ALLOWED_FUNCTIONS.has(bare)) {
        const tooLarge = sizeRefusalOfCall(bare, Array.isArray(node.args) ? node.args : [], parameters);
        return tooLarge === undefined ? undefined : { errorName: 'UnboundedSize', message: tooLarge };
      }
      if (bare !== undefined && Object.hasOwn(AMPLIFIERS_REFUSED, bare))
        return { errorName: 'FunctionNotAllowed', message: AMPLIFIERS_REFUSED[bare]! };
      return {
        errorName: 'FunctionNotAllowed',
        message: `The function ${quoted(name)} is not allowed in ontology SQL (only computations over the query's own rows are: see docs/app-developers/ontology-sql.md).`,
      };
    }
    case 'RangeVar': {
      const relation = typeof node.relname === 'string' ? node.relname : '';
      const schema = typeof node.schemaname === 'string' ? node.schemaname : undefined;
      const allowed =
        node.catalogname === undefined &&
        // pg_catalog comes first on every search_path: an unqualified pg_* name is a catalog relation.
        (schema === undefined ? !relation.startsWith('pg_') : schema === schemaName);
      if (allowed) return undefined;
      const full = [node.catalogname, schema, relation].filter((p): p is string => typeof p === 'string');
      return {
        errorName: 'RelationNotAllowed',
        message: `The relation ${quoted(full)} is not allowed: a query reads the object types it can read (tables named by apiName) and nothing else.`,
      };
    }
    case 'TypeName': {
      const name = names(node.names);
      const type = name.at(-1) ?? '';
      const qualifiedElsewhere = name.length > 1 && name[0] !== 'pg_catalog';
      // `_regclass` is regclass[] spelled as its array type: the same catalog lookup.
      if (!type.replace(/^_/, '').startsWith('reg') && !qualifiedElsewhere) {
        const tooLarge = sizeRefusalOfType(type, node.typmods);
        return tooLarge === undefined ? undefined : { errorName: 'UnboundedSize', message: tooLarge };
      }
      return {
        errorName: 'TypeNotAllowed',
        message: `The type ${quoted(name)} is not allowed here: only built-in types, and no reg* type (they look names up in the database's catalogs).`,
      };
    }
    // An operator named with its schema (`OPERATOR(public.+)`, `ORDER BY … USING`, `= ANY` of a sublink) may be anyone's function.
    case 'A_Expr':
    case 'SortBy':
    case 'SubLink': {
      const name = names(kind === 'A_Expr' ? node.name : kind === 'SortBy' ? node.useOp : node.operName);
      if (name.length < 2 || name[0] === 'pg_catalog') return undefined;
      return { errorName: 'OperatorNotAllowed', message: `The operator ${quoted(name)} is not allowed here.` };
    }
    case 'RangeTableSample': {
      const method = names(node.method);
      if (method.length === 1 && SAMPLE_METHODS.has(method[0]!)) return undefined;
      return { errorName: 'FunctionNotAllowed', message: `The sampling method ${quoted(method)} is not allowed here.` };
    }
    default:
      return undefined;
  }
}

/** The parser's `location` is a byte offset into the UTF-8 text; PostgreSQL reports 1-based characters. */
function withPosition(refusal: SqlRefusal, node: JsonObject, text: string): SqlRefusal {
  if (typeof node.location !== 'number' || node.location < 0) return refusal;
  return { ...refusal, position: Buffer.from(text, 'utf8').subarray(0, node.location).toString('utf8').length + 1 };
}

/** `DoStmt` → `DO`, `DeleteStmt` → `DELETE`, `VariableSetStmt` → `VARIABLE SET`: good enough to name what was refused. */
const statementName = (kind: string) =>
  kind
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();

export interface SqlCheckInput extends CheckContext {
  text: string;
  /** Tables (apiNames) the caller's security policies filter: their references are found for the rewrite (policed-references.ts). */
  policed?: readonly string[];
}

/** The verdict the parser thread answers: ok, a syntax error (PostgreSQL's message and position) or a refusal. */
export type SqlCheck =
  | { ok: true; references: PolicedReference[] }
  | { ok: false; errorName: 'QueryParseError'; message: string; sqlState: string; position?: number }
  | ({ ok: false } & SqlRefusal);

export function sqlCheckOf(tree: ParseTree, { text, policed = [], ...context }: SqlCheckInput): SqlCheck {
  const refusal = checkParsedSql(tree, text, context);
  if (refusal) return { ok: false, ...refusal };
  const found = policedReferences(tree, text, context.schemaName, policed);
  return 'references' in found ? { ok: true, references: found.references } : { ok: false, ...found };
}
