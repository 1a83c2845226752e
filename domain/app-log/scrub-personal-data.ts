// Deny-list scrub of obviously personal sensitive data in app-sent text (spec: extra data must not
// hold personal sensitive data). Replaced in every string value, keys kept:
//   email address      local@domain.tld                       → [email]
//   card number        13-19 digits (spaces or hyphens) passing the Luhn check → [card]
//   phone number       10-15 digits, or `+` and 7-15 digits (spaces, hyphens, parentheses) → [phone]
// One left-to-right pass per string; every character is looked at a bounded number of times (no
// backtracking regex), so hostile input costs linear time.

const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlnum = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** Characters of an email's local part (before @). */
const isLocal = (c: number) => isAlnum(c) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45; // . _ % + -
/** Characters of an email's domain (after @). */
const isDomain = (c: number) => isAlnum(c) || c === 46 || c === 45;
/** Separators allowed inside a phone or card number. */
const isNumberSep = (c: number) => c === 32 || c === 45 || c === 40 || c === 41; // space - ( )

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

/** The end of the email whose `@` is at `at` and whose local part starts at `start`, or -1. */
function emailEnd(s: string, start: number, at: number): number {
  if (start === at) return -1;
  let end = at + 1;
  let lastDot = -1;
  while (end < s.length && isDomain(s.charCodeAt(end))) {
    // Only a dot followed by a letter or digit separates labels; trailing dots end a sentence.
    if (s.charCodeAt(end) === 46 && end + 1 < s.length && isAlnum(s.charCodeAt(end + 1))) lastDot = end;
    end++;
  }
  while (end > at + 1 && s.charCodeAt(end - 1) === 46) end--;
  return lastDot > at + 1 && end - lastDot > 2 ? end : -1;
}

export function scrubText(s: string): string {
  let out = '';
  let copied = 0; // s[copied..] not yet appended to out
  let localStart = 0; // where the run of local-part characters before i began
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 64) {
      const end = emailEnd(s, localStart, i);
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
    if ((isDigit(c) || c === 43) && !isAlnum(prev) && prev !== 46 && i >= copied) {
      let j = i + (c === 43 ? 1 : 0);
      let digits = '';
      let lastDigitEnd = j;
      while (j < s.length && (isDigit(s.charCodeAt(j)) || isNumberSep(s.charCodeAt(j)))) {
        if (isDigit(s.charCodeAt(j))) {
          digits += s[j];
          lastDigitEnd = j + 1;
        }
        j++;
      }
      // A separator inside the run also ends a would-be email's local part.
      for (let k = i; k < lastDigitEnd; k++) if (!isLocal(s.charCodeAt(k))) localStart = k + 1;
      const next = lastDigitEnd < s.length ? s.charCodeAt(lastDigitEnd) : 32;
      const bounded = !isAlnum(next) && !(next === 46 && isDigit(lastDigitEnd + 1 < s.length ? s.charCodeAt(lastDigitEnd + 1) : 32));
      const n = digits.length;
      let label: string | null = null;
      if (bounded && n >= 13 && n <= 19 && luhn(digits)) label = '[card]';
      else if (bounded && ((n >= 10 && n <= 15) || (c === 43 && n >= 7 && n <= 15))) label = '[phone]';
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

/** A copy of a JSON value with every string scrubbed (object keys too). */
export function scrubPersonalData<T>(value: T): T {
  if (typeof value === 'string') return scrubText(value) as T;
  if (Array.isArray(value)) return value.map(scrubPersonalData) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[scrubText(k)] = scrubPersonalData(v);
    return out as T;
  }
  return value;
}
