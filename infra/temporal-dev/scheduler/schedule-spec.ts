// Schedule specs, after Temporal's scheduler: the canonical form (calendar strings and cron
// strings become structured calendars or intervals), validation, and matching-time arithmetic
// (calendars in any IANA time zone via Intl, correct across DST; intervals with phase;
// exclusions; start/end bounds; deterministic jitter). Times are whole seconds, like Temporal's.
import type { Msg } from '../common/proto.ts';
import { msToProto, parseGoDuration, protoToMs } from '../common/time.ts';

/** A spec the server rejects; the handlers answer INVALID_ARGUMENT "Invalid schedule spec: ...". */
export class SpecError extends Error {}

const MIN_YEAR = 2000;
const MAX_YEAR = 2100;
/** Bounds the search when exclusions reject match after match (Temporal bounds it too). */
const MAX_EXCLUDED_ITERATIONS = 100_000;
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

type Mode = 'int' | 'month' | 'dow' | 'year';
interface Range {
  start: number;
  end?: number;
  step?: number;
}

// ---- canonical form ----

/**
 * Returns the spec as Temporal stores it: `calendar`, `excludeCalendar` and `cronString` are
 * parsed into `structuredCalendar`/`excludeStructuredCalendar`/`interval` (and a cron string's
 * time zone into `timezoneName`), then validated. Throws SpecError.
 */
export function canonicalizeSpec(spec: Msg | undefined): Msg {
  const s = spec ?? {};
  if (s.timezoneData?.length) throw new SpecError('timezone_data is not supported by temporal-dev; use timezone_name');
  const structured: Msg[] = [...(s.structuredCalendar ?? []), ...(s.calendar ?? []).map(parseCalendar)];
  const excluded: Msg[] = [...(s.excludeStructuredCalendar ?? []), ...(s.excludeCalendar ?? []).map(parseCalendar)];
  const intervals: Msg[] = [...(s.interval ?? [])];
  let timezoneName: string = s.timezoneName ?? '';
  let cronTz: string | undefined;
  for (const cron of (s.cronString ?? []) as string[]) {
    const parsed = parseCron(cron);
    // All cron strings must agree on their time zone (present or not).
    if (cronTz !== undefined && parsed.tz !== cronTz) throw new SpecError('conflicting timezone names');
    cronTz = parsed.tz;
    if (parsed.calendar) structured.push(parsed.calendar);
    if (parsed.interval) intervals.push(parsed.interval);
  }
  if (cronTz) {
    if (timezoneName && timezoneName !== cronTz) throw new SpecError('conflicting timezone names');
    timezoneName = cronTz;
  }
  for (const cal of structured) validateCalendar(cal);
  for (const iv of intervals) validateInterval(iv);
  checkTimezone(timezoneName);
  return {
    structuredCalendar: structured,
    interval: intervals,
    excludeStructuredCalendar: excluded,
    startTime: s.startTime ?? undefined,
    endTime: s.endTime ?? undefined,
    jitter: s.jitter ?? undefined,
    timezoneName,
  };
}

/** The spec as Describe/List show it: every range with an explicit end and step. */
export function cleanSpec(spec: Msg): Msg {
  const cleanCal = (cal: Msg): Msg => {
    const out: Msg = { comment: cal.comment ?? '' };
    for (const field of ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'year', 'dayOfWeek']) {
      out[field] = ((cal[field] ?? []) as Range[]).map((r) => {
        const start = r.start ?? 0;
        return { start, end: Math.max(r.end ?? 0, start), step: r.step || 1 };
      });
    }
    return out;
  };
  return {
    ...spec,
    structuredCalendar: (spec.structuredCalendar ?? []).map(cleanCal),
    excludeStructuredCalendar: (spec.excludeStructuredCalendar ?? []).map(cleanCal),
  };
}

function parseCalendar(cal: Msg): Msg {
  const errors: string[] = [];
  const range = (value: string | undefined, field: string, def: string, min: number, max: number, mode: Mode): Range[] => {
    try {
      return makeRanges(value, field, def, min, max, mode);
    } catch (err) {
      errors.push((err as Error).message);
      return [];
    }
  };
  const out = {
    second: range(cal.second, 'Second', '0', 0, 59, 'int'),
    minute: range(cal.minute, 'Minute', '0', 0, 59, 'int'),
    hour: range(cal.hour, 'Hour', '0', 0, 23, 'int'),
    dayOfWeek: range(cal.dayOfWeek, 'DayOfWeek', '*', 0, 7, 'dow'),
    dayOfMonth: range(cal.dayOfMonth, 'DayOfMonth', '*', 1, 31, 'int'),
    month: range(cal.month, 'Month', '*', 1, 12, 'month'),
    year: range(cal.year, 'Year', '*', MIN_YEAR, MAX_YEAR, 'year'),
    comment: cal.comment ?? '',
  };
  if (errors.length) throw new SpecError(errors.join(', '));
  return out;
}

/** Parses `*`, `x`, `x-z`, `x-z/y`, `x/y` and comma lists of them (names for months and weekdays). */
function makeRanges(input: string | undefined, field: string, def: string, min: number, max: number, mode: Mode): Range[] {
  const s = input?.trim() || def;
  // An empty year list means every year.
  if (s === '*' && mode === 'year') return [];
  const ranges: Range[] = [];
  for (let part of s.split(',')) {
    let step = 1;
    let hasStep = false;
    const slashes = part.split('/').length - 1;
    if (slashes > 1) throw new SpecError(`${field} has too many slashes`);
    if (slashes === 1) {
      const [head, stepText] = part.split('/') as [string, string];
      if (stepText === '') throw new SpecError(`${field} missing step value`);
      step = Number(stepText);
      if (!Number.isInteger(step) || step < 1) throw new SpecError(`${field} has invalid Step`);
      part = head;
      hasStep = true;
    }
    let start = min;
    let end = max;
    if (part !== '*') {
      if (part.includes('-')) {
        const pieces = part.split('-');
        if (pieces.length !== 2) throw new SpecError(`${field} has too many dashes`);
        start = parseValue(pieces[0]!, min, max, mode, `${field} Start is not in range [${min}-${max}]`);
        end = parseValue(pieces[1]!, start, max, mode, `${field} End is before Start or not in range [${min}-${max}]`);
      } else {
        start = parseValue(part, min, max, mode, `${field} is not in range [${min}-${max}]`);
        // With a step, a single value runs to the maximum.
        if (!hasStep) end = start;
      }
    }
    // Sunday may be written 7: fold it into 0, adding a separate 0 where a range would not cover it.
    if (mode === 'dow' && end === 7) {
      if ((7 - start) % step === 0 && (step > 1 || start > 1)) {
        ranges.push({ start: 0 });
        if (start === 7) continue;
      }
      end = 6;
    }
    ranges.push({ start, end: start === end ? 0 : end, step: step === 1 ? 0 : step });
  }
  return ranges;
}

function parseValue(text: string, min: number, max: number, mode: Mode, message: string): number {
  const lower = text.trim().toLowerCase();
  let value: number | undefined;
  if (mode === 'month' && lower.length >= 3) {
    const i = MONTHS.findIndex((m) => m.startsWith(lower));
    if (i >= 0) value = i + 1;
  } else if (mode === 'dow' && lower.length >= 2) {
    const i = DAYS.findIndex((d) => d.startsWith(lower));
    if (i >= 0) value = i;
  }
  if (value === undefined) value = /^\d+$/.test(lower) ? Number(lower) : Number.NaN;
  if (!(value >= min && value <= max)) throw new SpecError(message);
  return value;
}

const PREDEFINED: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

function parseCron(input: string): { calendar?: Msg; interval?: Msg; tz: string } {
  let c = input.trim();
  let tz = '';
  if (c.startsWith('TZ=') || c.startsWith('CRON_TZ=')) {
    const space = c.indexOf(' ');
    if (space < 0) throw new SpecError('CronString has time zone but missing fields');
    tz = c.slice(c.indexOf('=') + 1, space);
    c = c.slice(space + 1);
  }
  const hash = c.indexOf('#');
  const comment = hash >= 0 ? c.slice(hash + 1).trim() : '';
  if (hash >= 0) c = c.slice(0, hash);
  c = c.trim();
  if (c.startsWith('@every')) {
    const rest = c.split(/\s+/)[1];
    if (!rest) throw new SpecError('CronString does not have interval after @every');
    const [every, phase] = rest.split('/') as [string, string | undefined];
    const interval: Msg = { interval: msToProto(goDuration(every)) };
    if (phase !== undefined) interval.phase = msToProto(goDuration(phase));
    // Temporal ignores a time zone given with @every.
    return { interval, tz: '' };
  }
  c = PREDEFINED[c] ?? c;
  const f = c.split(/\s+/).filter(Boolean);
  let cal: Msg;
  if (f.length === 5) cal = { minute: f[0], hour: f[1], dayOfMonth: f[2], month: f[3], dayOfWeek: f[4] };
  else if (f.length === 6) cal = { minute: f[0], hour: f[1], dayOfMonth: f[2], month: f[3], dayOfWeek: f[4], year: f[5] };
  else if (f.length === 7) cal = { second: f[0], minute: f[1], hour: f[2], dayOfMonth: f[3], month: f[4], dayOfWeek: f[5], year: f[6] };
  else throw new SpecError('CronString does not have 5-7 fields');
  return { calendar: parseCalendar({ ...cal, comment }), tz };
}

function goDuration(text: string): number {
  const ms = parseGoDuration(text);
  if (ms === undefined) throw new SpecError(`invalid duration "${text}"`);
  return ms;
}

function validateCalendar(cal: Msg): void {
  const errors: string[] = [];
  const check = (ranges: Range[] | undefined, field: string, min: number, max: number) => {
    for (const r of ranges ?? []) {
      const start = r.start ?? 0;
      const end = r.end ?? 0;
      if (start < min || start > max) errors.push(`${field} Start is not in range [${min}-${max}]`);
      if (end !== 0 && (end < start || end > max)) errors.push(`${field} End is before Start or not in range [${min}-${max}]`);
      if ((r.step ?? 0) < 0) errors.push(`${field} has invalid Step`);
    }
  };
  check(cal.second, 'Second', 0, 59);
  check(cal.minute, 'Minute', 0, 59);
  check(cal.hour, 'Hour', 0, 23);
  check(cal.dayOfMonth, 'DayOfMonth', 1, 31);
  check(cal.month, 'Month', 1, 12);
  check(cal.year, 'Year', MIN_YEAR, MAX_YEAR);
  check(cal.dayOfWeek, 'DayOfWeek', 0, 6);
  if (errors.length) throw new SpecError(`invalid calendar spec: ${errors.join(', ')}`);
}

function validateInterval(iv: Msg): void {
  const every = durationMs(iv.interval);
  const phase = durationMs(iv.phase);
  if (every < 1000) throw new SpecError('interval is too small');
  if (phase < 0) throw new SpecError('phase is negative');
  if (phase >= every) throw new SpecError('phase cannot be greater than Interval');
}

/** Signed milliseconds of a Duration (protoToMs treats negatives as unset). */
function durationMs(d: Msg | undefined): number {
  return d ? Number(d.seconds ?? 0) * 1000 + Math.trunc(Number(d.nanos ?? 0) / 1e6) : 0;
}

function checkTimezone(tz: string): void {
  if (!tz || tz === 'UTC') return;
  try {
    formatter(tz);
  } catch {
    throw new SpecError(`unknown time zone ${tz}`);
  }
}

// ---- time zones ----

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** UTC offset in seconds of `tz` at instant `sec`. */
function offsetAt(tz: string, sec: number): number {
  if (!tz || tz === 'UTC') return 0;
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(sec * 1000))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day, parts.hour, parts.minute, parts.second) / 1000 - sec;
}

/**
 * The first instant in (from, to] where the offset of `tz` differs from `offset`, or undefined.
 * Probes day by day (real zones change at most a few times a year), then bisects to the second.
 */
function firstTransition(tz: string, from: number, to: number, offset: number): number | undefined {
  if (!tz || tz === 'UTC') return undefined;
  for (let lo = from; lo < to; ) {
    let hi = Math.min(lo + 86_400, to);
    if (offsetAt(tz, hi) !== offset) {
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (offsetAt(tz, mid) === offset) lo = mid;
        else hi = mid;
      }
      return hi;
    }
    lo = hi;
  }
  return undefined;
}

// ---- compiled specs ----

interface Calendar {
  /** undefined: every year. */
  years: Set<number> | undefined;
  month: boolean[];
  dayOfMonth: boolean[];
  dayOfWeek: boolean[];
  hour: boolean[];
  minute: boolean[];
  second: boolean[];
}

function values(ranges: Range[] | undefined, add: (v: number) => void): void {
  for (const r of ranges ?? []) {
    const start = r.start ?? 0;
    const end = Math.max(r.end ?? 0, start);
    const step = r.step || 1;
    for (let v = start; v <= end; v += step) add(v);
  }
}

function bits(ranges: Range[] | undefined, size: number): boolean[] {
  const out = new Array<boolean>(size).fill(false);
  values(ranges, (v) => {
    if (v >= 0 && v < size) out[v] = true;
  });
  return out;
}

function compileCalendar(cal: Msg): Calendar {
  const years = new Set<number>();
  values(cal.year, (v) => years.add(v));
  return {
    years: (cal.year ?? []).length ? years : undefined,
    month: bits(cal.month, 13),
    dayOfMonth: bits(cal.dayOfMonth, 32),
    dayOfWeek: bits(cal.dayOfWeek, 7),
    hour: bits(cal.hour, 24),
    minute: bits(cal.minute, 60),
    second: bits(cal.second, 60),
  };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The first wall time (seconds, as if UTC) at or after `from` that the calendar matches. */
function nextWallMatch(c: Calendar, from: number): number | undefined {
  const d = new Date(from * 1000);
  let y = d.getUTCFullYear();
  let mo = d.getUTCMonth() + 1;
  let day = d.getUTCDate();
  let h = d.getUTCHours();
  let mi = d.getUTCMinutes();
  let s = d.getUTCSeconds();
  for (;;) {
    if (s >= 60) [mi, s] = [mi + 1, 0];
    if (mi >= 60) [h, mi] = [h + 1, 0];
    if (h >= 24) [day, h] = [day + 1, 0];
    if (day > daysInMonth(y, mo)) [mo, day] = [mo + 1, 1];
    if (mo > 12) [y, mo] = [y + 1, 1];
    if (y > MAX_YEAR) return undefined;
    if (c.years && !c.years.has(y)) [y, mo, day, h, mi, s] = [y + 1, 1, 1, 0, 0, 0];
    else if (!c.month[mo]) [mo, day, h, mi, s] = [mo + 1, 1, 0, 0, 0];
    else if (!c.dayOfMonth[day] || !c.dayOfWeek[new Date(Date.UTC(y, mo - 1, day)).getUTCDay()]) [day, h, mi, s] = [day + 1, 0, 0, 0];
    else if (!c.hour[h]) [h, mi, s] = [h + 1, 0, 0];
    else if (!c.minute[mi]) [mi, s] = [mi + 1, 0];
    else if (!c.second[s]) s++;
    else return Date.UTC(y, mo - 1, day, h, mi, s) / 1000;
  }
}

/**
 * The first instant strictly after `after` (seconds) whose local time in `tz` matches the
 * calendar. Within a stretch of constant UTC offset, local and UTC time move together, so the
 * first matching wall time gives the answer unless the offset changes before it; then the search
 * restarts at that transition. So wall times skipped by a spring-forward never match, and those
 * of a repeated fall-back hour match twice, as in Temporal.
 */
function calendarNext(c: Calendar, tz: string, after: number): number | undefined {
  let from = after + 1;
  for (;;) {
    const offset = offsetAt(tz, from);
    const wall = nextWallMatch(c, from + offset);
    if (wall === undefined) return undefined;
    const t = wall - offset;
    const transition = firstTransition(tz, from, t, offset);
    if (transition === undefined) return t;
    from = transition;
  }
}

function calendarMatches(c: Calendar, tz: string, sec: number): boolean {
  const d = new Date((sec + offsetAt(tz, sec)) * 1000);
  const y = d.getUTCFullYear();
  return (
    (!c.years || c.years.has(y)) &&
    c.month[d.getUTCMonth() + 1]! &&
    c.dayOfMonth[d.getUTCDate()]! &&
    c.dayOfWeek[d.getUTCDay()]! &&
    c.hour[d.getUTCHours()]! &&
    c.minute[d.getUTCMinutes()]! &&
    c.second[d.getUTCSeconds()]!
  );
}

export interface NextTime {
  /** The matching time before jitter (ms, whole seconds). */
  nominal: number;
  /** The nominal time plus jitter (ms). */
  next: number;
}

export interface CompiledSpec {
  /** The first action time strictly after `afterMs`, or undefined when the spec has no more. */
  next(afterMs: number): NextTime | undefined;
}

/** Compiles a canonical spec; `seed` makes the jitter deterministic per schedule. */
export function compileSpec(spec: Msg, seed: string): CompiledSpec {
  const tz: string = spec.timezoneName ?? '';
  const calendars = ((spec.structuredCalendar ?? []) as Msg[]).map(compileCalendar);
  const excludes = ((spec.excludeStructuredCalendar ?? []) as Msg[]).map(compileCalendar);
  const intervals = ((spec.interval ?? []) as Msg[]).map((iv) => ({
    every: Math.max(1, Math.floor(durationMs(iv.interval) / 1000)),
    phase: Math.max(0, Math.floor(durationMs(iv.phase) / 1000)),
  }));
  const startMs = protoToMs(spec.startTime);
  const endMs = protoToMs(spec.endTime);
  const jitterMs = protoToMs(spec.jitter) ?? 0;

  const rawNext = (after: number): number | undefined => {
    let min: number | undefined;
    for (const c of calendars) {
      const t = calendarNext(c, tz, after);
      if (t !== undefined && (min === undefined || t < min)) min = t;
    }
    for (const { every, phase } of intervals) {
      const t = (Math.floor((after - phase) / every) + 1) * every + phase;
      if (min === undefined || t < min) min = t;
    }
    return min;
  };

  return {
    next(afterMs) {
      let after = Math.floor(afterMs / 1000);
      // Before the allowed range: jump to just before it, so its first second can match.
      if (startMs !== undefined) after = Math.max(after, Math.floor(startMs / 1000) - 1);
      let nominal: number | undefined;
      for (let i = 0; ; i++) {
        nominal = rawNext(after);
        if (nominal === undefined || (endMs !== undefined && nominal * 1000 > endMs)) return undefined;
        if (new Date(nominal * 1000).getUTCFullYear() > MAX_YEAR || i >= MAX_EXCLUDED_ITERATIONS) return undefined;
        if (!excludes.some((c) => calendarMatches(c, tz, nominal!))) break;
        after = nominal;
      }
      // Jitter never pushes an action past the next nominal time.
      let maxJitter = jitterMs;
      const following = rawNext(nominal);
      if (following !== undefined) maxJitter = Math.min(maxJitter, (following - nominal) * 1000);
      return { nominal: nominal * 1000, next: nominal * 1000 + jitter(`${nominal}/${seed}`, maxJitter) };
    },
  };
}

/** Deterministic jitter in [0, maxMs): FNV-1a of the nominal time and the schedule's seed. */
function jitter(key: string, maxMs: number): number {
  if (maxMs <= 0) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return Math.floor((h * Math.floor(maxMs)) / 2 ** 32);
}
