// The first line against PostgreSQL memory in ontology SQL (issue 28): functions whose output size
// an argument sets run only with constant arguments under the caps below, and WITH RECURSIVE is
// refused. Checked on libpg_query's tree by sql-allowlist.ts, one node at a time (linear in the
// text). This is not a bound on its own: `||`, replace, string_agg over a cross join and the like
// grow values without any size argument, so the backend's address-space ceiling
// (infra/postgres/embedded-postgres.ts, docs/app-developers/ontology-sql.md) is what holds in the end; the caps
// make the cheap one-line attacks fail at once, with a message, before anything runs.

/** lpad/rpad lengths, format widths and char(n)/bit(n) lengths: characters (or bits) of one value. */
export const SQL_MAX_PAD_LENGTH = 10_000;
/** Rows of one generate_series. */
export const SQL_MAX_SERIES_ROWS = 1_000_000;

/** Functions off the allowlist because their output size is set by an argument alone; why, and what to use. */
export const AMPLIFIERS_REFUSED: Readonly<Record<string, string>> = {
  repeat: `repeat makes a value as large as its count says: use rpad('', n, text) (n at most ${SQL_MAX_PAD_LENGTH.toLocaleString('en')}).`,
  array_fill: 'array_fill makes an array as large as its dimensions say: build it with ARRAY[…] or array_agg.',
  jsonb_pretty: "jsonb_pretty's output grows with the square of the nesting depth: use the jsonb value itself, or ::text.",
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
/** A request parameter, as $n stands for it. */
export type SqlParameterValue = string | number | boolean | null;

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const caps = (n: number) => n.toLocaleString('en');

/**
 * The value of a constant argument: a literal (an integer, a decimal, a string), such a literal
 * cast to a type, or a parameter; undefined for anything else (a column, an expression).
 */
function constantOf(node: Json | undefined, parameters: readonly SqlParameterValue[]): SqlParameterValue | undefined {
  if (!isObject(node)) return undefined;
  if (isObject(node.TypeCast)) return constantOf(node.TypeCast.arg, parameters);
  if (isObject(node.ParamRef)) {
    const n = node.ParamRef.number;
    return typeof n === 'number' && n >= 1 && n <= parameters.length ? parameters[n - 1] : undefined;
  }
  const c = node.A_Const;
  if (!isObject(c)) return undefined;
  if (c.isnull === true) return null;
  if (isObject(c.ival)) return typeof c.ival.ival === 'number' ? c.ival.ival : 0; // 0 is `ival: {}`
  if (isObject(c.fval) && typeof c.fval.fval === 'string') return Number(c.fval.fval);
  if (isObject(c.sval) && typeof c.sval.sval === 'string') return c.sval.sval;
  return undefined;
}

/** A number, or a string that spells one (parameters and quoted literals): else NaN. */
function numberOf(v: SqlParameterValue | undefined): number {
  if (typeof v === 'number') return v;
  // Unambiguous (one way to match each digit), so a long string of digits is read in linear time.
  if (typeof v === 'string' && /^\s*[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?\s*$/i.test(v)) return Number(v);
  return Number.NaN;
}

/** The refusal message for a call of `name` (bare, lower case) with these arguments, or undefined when it is within the caps. */
export function sizeRefusalOfCall(name: string, args: readonly Json[], parameters: readonly SqlParameterValue[]): string | undefined {
  const constant = (i: number) => constantOf(args[i], parameters);
  switch (name) {
    case 'lpad':
    case 'rpad': {
      const length = numberOf(constant(1));
      if (length <= SQL_MAX_PAD_LENGTH) return undefined;
      return `${name}'s length must be a constant (a literal or a parameter) of at most ${caps(SQL_MAX_PAD_LENGTH)}: it sets the size of the value made.`;
    }
    case 'format': {
      const template = constant(0);
      if (typeof template !== 'string')
        return "format's first argument must be a constant string: its widths set the size of the value made.";
      // %[position$][-][width]type, where a width of * takes its value from an argument.
      for (const [, width] of template.matchAll(/%%|%(?:\d+\$)?-*(\*|\d+)?/g)) {
        if (width === '*') return `format's widths must be written in the template (not *), at most ${caps(SQL_MAX_PAD_LENGTH)}.`;
        if (width !== undefined && Number(width) > SQL_MAX_PAD_LENGTH)
          return `format's widths must be at most ${caps(SQL_MAX_PAD_LENGTH)}.`;
      }
      return undefined;
    }
    case 'generate_series': {
      const rows = seriesRows(constant(0), constant(1), args.length > 2 ? constant(2) : 1);
      if (rows <= SQL_MAX_SERIES_ROWS) return undefined;
      return Number.isNaN(rows)
        ? `generate_series needs constant bounds and step (literals or parameters: numbers, or ISO dates with an interval such as '1 day') so that its rows are known, at most ${caps(SQL_MAX_SERIES_ROWS)}.`
        : `generate_series would make ${caps(rows)} rows: at most ${caps(SQL_MAX_SERIES_ROWS)}.`;
    }
    default:
      return undefined;
  }
}

/** The refusal message of a type whose length pads every value to it (char(n), bit(n)), or undefined. */
export function sizeRefusalOfType(typeName: string, typmods: Json | undefined): string | undefined {
  // char(n) and character(n) are bpchar(n) in the tree.
  if (typeName !== 'bpchar' && typeName !== 'bit') return undefined;
  const length = Array.isArray(typmods) ? numberOf(constantOf(typmods[0], [])) : 0;
  if (length <= SQL_MAX_PAD_LENGTH) return undefined;
  return `char(n) and bit(n) pad every value to n: n at most ${caps(SQL_MAX_PAD_LENGTH)}.`;
}

export const RECURSION_REFUSED =
  'WITH RECURSIVE is not allowed in ontology SQL: a recursive query can build rows and values without bound.';

/** Rows of generate_series(start, stop, step), or NaN when its arguments are not constants it can count. */
function seriesRows(
  start: SqlParameterValue | undefined,
  stop: SqlParameterValue | undefined,
  step: SqlParameterValue | undefined,
): number {
  const [a, b, s] = [numberOf(start), numberOf(stop), numberOf(step)];
  if (!Number.isNaN(a) && !Number.isNaN(b) && !Number.isNaN(s)) {
    if (s === 0) return 0; // PostgreSQL refuses a zero step
    return Math.max(0, Math.floor((b - a) / s) + 1);
  }
  // Dates and timestamps: step an interval. Months count as 28 days, years as 365: never fewer rows than PostgreSQL makes.
  const [from, to, every] = [timeOf(start), timeOf(stop), intervalMsOf(step)];
  if (Number.isNaN(from) || Number.isNaN(to) || !(every > 0)) return Number.NaN;
  return Math.floor(Math.abs(to - from) / every) + 1;
}

/** Milliseconds of an ISO-like date or timestamp literal ('2026-01-01', '2026-01-01 10:00:00+02'), else NaN. */
function timeOf(v: SqlParameterValue | undefined): number {
  if (typeof v !== 'string') return Number.NaN;
  // PostgreSQL writes an offset as +02; Date.parse wants +02:00.
  const iso = v
    .trim()
    .replace(' ', 'T')
    .replace(/(T[\d:.]+[+-]\d\d)$/, '$1:00');
  return /^\d{4}-\d\d-\d\d/.test(iso) ? Date.parse(iso) : Number.NaN;
}

const UNIT_MS: Readonly<Record<string, number>> = {
  microsecond: 0.001,
  millisecond: 1,
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 28 * 86_400_000,
  year: 365 * 86_400_000,
};
const UNIT_ALIASES: Readonly<Record<string, string>> = {
  us: 'microsecond',
  ms: 'millisecond',
  s: 'second',
  sec: 'second',
  m: 'minute',
  min: 'minute',
  h: 'hour',
  hr: 'hour',
  d: 'day',
  w: 'week',
  mon: 'month',
  y: 'year',
  yr: 'year',
};

/** `record[key]` when the record has it as its own key (never `constructor` and the like). */
const own = <T>(record: Readonly<Record<string, T>>, key: string | undefined): T | undefined =>
  key !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;

/** The absolute length of an interval literal ('1 day', '2 hours 30 minutes', '01:00:00'), else NaN. */
function intervalMsOf(v: SqlParameterValue | undefined): number {
  if (typeof v !== 'string') return Number.NaN;
  const text = v.trim().toLowerCase();
  const clock = /^(\d+):(\d\d)(?::(\d\d(?:\.\d+)?))?$/.exec(text);
  if (clock) return (Number(clock[1]) * 60 + Number(clock[2])) * 60_000 + Number(clock[3] ?? 0) * 1_000;
  // Amount and unit pairs, tokenized in one pass: '2 hours 30 minutes' → 2, hours, 30, minutes.
  const tokens = text.match(/[-+]?\d+(?:\.\d+)?|[a-z]+|\S/g) ?? [];
  if (tokens.length === 0 || tokens.length % 2 !== 0) return Number.NaN;
  let total = 0;
  for (let i = 0; i < tokens.length; i += 2) {
    const unit = tokens[i + 1]!;
    const bare = unit.replace(/s$/, ''); // 'days', 'mins'; but 'ms' and 's' are units of their own
    const ms = [unit, own(UNIT_ALIASES, unit), bare, own(UNIT_ALIASES, bare)].map((u) => own(UNIT_MS, u)).find((x) => x !== undefined);
    total += ms === undefined ? Number.NaN : Number(tokens[i]) * ms;
  }
  return Math.abs(total);
}
