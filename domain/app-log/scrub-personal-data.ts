// Deny-list scrub of obviously personal sensitive data in app-sent data (spec: extra data must not
// hold personal sensitive data). Replaced in every string value, keys kept:
//   email address      local@domain.tld, letters of any script (jörg@exämple.de)   → [email]
//   card number        13-19 digits (spaces or hyphens between, or dots between groups of
//                      four) passing the Luhn check                                   → [card]
//   phone number       10-15 digits, or `+` and 7-15 digits (spaces, hyphens, parentheses
//                      between, or dots between three or more groups of 2-4 digits, the last of 4) → [phone]
// Digits may be ASCII or full-width (４１１１, U+FF10-FF19), with full-width separators. A JSON number
// is one run of digits: an integer that is a card or phone number becomes the label, except
// integers in the epoch-second and epoch-millisecond ranges of 2001-2100 (timestamps; see scrubNumber).
// One left-to-right pass per string; every character is looked at a bounded number of times (no
// backtracking regex), so hostile input costs linear time. `meter` counts those looks, for the
// test that proves it.

/** Looks at characters, counted when a meter is given. */
export interface ScrubMeter {
  steps: number;
}

/** A letter, mark or digit of any script, for characters beyond ASCII (one character: linear). */
const NON_ASCII_WORD = /^[\p{L}\p{M}\p{N}]$/u;

const digitOf = (c: number) => (c >= 48 && c <= 57 ? c - 48 : c >= 0xff10 && c <= 0xff19 ? c - 0xff10 : -1);
const isDigit = (c: number) => digitOf(c) >= 0;
const isWord = (c: number) =>
  isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 0x80 && NON_ASCII_WORD.test(String.fromCharCode(c)));
const isDot = (c: number) => c === 46 || c === 0xff0e;
const isPlus = (c: number) => c === 43 || c === 0xff0b;
/** Characters of an email's local part (before @): word characters and . _ % + - */
const isLocal = (c: number) => isWord(c) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45;
/** Characters of an email's domain (after @). */
const isDomain = (c: number) => isWord(c) || c === 46 || c === 45;
/** Separators allowed inside a phone or card number: space, hyphen, parentheses, and their full-width forms. */
const isNumberSep = (c: number) =>
  c === 32 || c === 45 || c === 40 || c === 41 || c === 0x3000 || c === 0xff0d || c === 0xff08 || c === 0xff09;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * The label of a run of digits (ASCII), or null. `groups`: the sizes of its dot-separated groups
 * when dots separate it, which only the usual dotted forms may have (so that decimals, versions
 * and IP addresses stay).
 */
function numberLabel(digits: string, plus: boolean, groups?: readonly number[]): '[card]' | '[phone]' | null {
  const n = digits.length;
  const last = groups?.at(-1) ?? 0;
  const cardShape = !groups || (groups.slice(0, -1).every((g) => g === 4) && last >= 1 && last <= 4);
  if (cardShape && n >= 13 && n <= 19 && luhn(digits)) return '[card]';
  const phoneShape = !groups || (groups.length >= 3 && groups.every((g) => g >= 2 && g <= 4) && last === 4);
  if (phoneShape && ((n >= 10 && n <= 15) || (plus && n >= 7 && n <= 15))) return '[phone]';
  return null;
}

/** The end of the email whose `@` is at `at` and whose local part starts at `start`, or -1. */
function emailEnd(s: string, start: number, at: number, meter: ScrubMeter): number {
  if (start === at) return -1;
  let end = at + 1;
  let lastDot = -1;
  while (end < s.length && isDomain(s.charCodeAt(end))) {
    meter.steps++;
    // Only a dot followed by a letter or digit separates labels; trailing dots end a sentence.
    if (s.charCodeAt(end) === 46 && end + 1 < s.length && isWord(s.charCodeAt(end + 1))) lastDot = end;
    end++;
  }
  while (end > at + 1 && s.charCodeAt(end - 1) === 46) {
    meter.steps++;
    end--;
  }
  return lastDot > at + 1 && end - lastDot > 2 ? end : -1;
}

export function scrubText(s: string, meter: ScrubMeter = { steps: 0 }): string {
  let out = '';
  let copied = 0; // s[copied..] not yet appended to out
  let localStart = 0; // where the run of local-part characters before i began
  let i = 0;
  while (i < s.length) {
    meter.steps++;
    const c = s.charCodeAt(i);
    if (c === 64) {
      const end = emailEnd(s, localStart, i, meter);
      if (end > 0 && localStart >= copied) {
        out += `${s.slice(copied, localStart)}[email]`;
        copied = end;
        i = end;
        localStart = end;
        continue;
      }
      localStart = i + 1;
      i++;
      continue;
    }
    if (!isLocal(c)) localStart = i + 1;
    // A number starts at a digit or `+` that does not continue a word or a decimal.
    const prev = i > 0 ? s.charCodeAt(i - 1) : 32;
    if ((isDigit(c) || isPlus(c)) && !isWord(prev) && !isDot(prev) && i >= copied) {
      let j = i + (isPlus(c) ? 1 : 0);
      let digits = '';
      let lastDigitEnd = j;
      // A run is separated by dots or by the other separators, never both.
      let style: 'none' | 'dots' | 'spaced' = 'none';
      const groups: number[] = [];
      let group = 0;
      while (j < s.length) {
        meter.steps++;
        const d = s.charCodeAt(j);
        if (isDigit(d)) {
          digits += String.fromCharCode(48 + digitOf(d));
          group++;
          lastDigitEnd = j + 1;
        } else if (isDot(d) && style !== 'spaced' && group > 0 && j + 1 < s.length && isDigit(s.charCodeAt(j + 1))) {
          style = 'dots';
          groups.push(group);
          group = 0;
        } else if (isNumberSep(d) && style !== 'dots') style = 'spaced';
        else break;
        j++;
      }
      // A separator inside the run also ends a would-be email's local part.
      for (let k = i; k < lastDigitEnd; k++) {
        meter.steps++;
        if (!isLocal(s.charCodeAt(k))) localStart = k + 1;
      }
      const next = lastDigitEnd < s.length ? s.charCodeAt(lastDigitEnd) : 32;
      const bounded = !isWord(next) && !(isDot(next) && isDigit(lastDigitEnd + 1 < s.length ? s.charCodeAt(lastDigitEnd + 1) : 32));
      const label = bounded ? numberLabel(digits, isPlus(c), style === 'dots' ? [...groups, group] : undefined) : null;
      if (label) {
        out += `${s.slice(copied, i)}${label}`;
        copied = lastDigitEnd;
        i = lastDigitEnd;
        localStart = i;
        continue;
      }
      // Not a number to scrub: skip the run (its characters cannot start another one).
      i = Math.max(i + 1, lastDigitEnd);
      continue;
    }
    i++;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/** 2101-01-01T00:00:00Z in epoch seconds. */
const YEAR_2101 = 4_102_444_800;

/**
 * An epoch timestamp of the years 2001-2100, in milliseconds (13 digits, `Date.now()`) or seconds
 * (10 digits, `Date.now() / 1000`, JWT `iat`/`exp`). Apps log these as numbers all the time, and
 * they have the length of a phone number; a phone number logged as a JSON number (its `+` and
 * leading zeros lost) is rare. So these ranges are timestamps, never phones or cards: a US
 * number with area code 201-410 and the old 13-digit cards from 4000… to 4102… given as JSON
 * numbers stay. Strings are not exempt.
 */
const isEpochTimestamp = (n: number) => (n >= 1e12 && n < YEAR_2101 * 1000) || (n >= 1e9 && n < YEAR_2101);

/**
 * A JSON number as the run of digits it is: a positive integer (up to 10^21, past which it is
 * printed with an exponent) that is not a timestamp. A card must pass the Luhn check, except
 * beyond 2^53: there its digits are rounded, so no checksum means anything, while they still show
 * all but the last few digits of the card; a card-length one counts as a card.
 */
function scrubNumber(value: number): number | string {
  if (!Number.isInteger(value) || value <= 0 || value >= 1e21 || isEpochTimestamp(value)) return value;
  const digits = value.toFixed(0);
  if (!Number.isSafeInteger(value) && digits.length <= 19) return '[card]';
  return numberLabel(digits, false) ?? value;
}

/** A copy of a JSON value with every string and number scrubbed (object keys too); an object stays an object. */
export function scrubPersonalData(value: Record<string, unknown>): Record<string, unknown>;
export function scrubPersonalData(value: unknown): unknown;
export function scrubPersonalData(value: unknown): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value === 'number') return scrubNumber(value);
  if (Array.isArray(value)) return value.map(scrubPersonalData);
  // Object.fromEntries defines own keys: a key `__proto__` cannot set the copy's prototype.
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrubText(k), scrubPersonalData(v)]));
  return value;
}
