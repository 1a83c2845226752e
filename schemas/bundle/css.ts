// URLs a stylesheet refers to: @import "..." and url(...) (which also covers @import url(...)).
// One forward scan by hand: comments are skipped, and a construct that does not complete is
// abandoned where its reading stopped, so each character is read once and the cost is linear
// whatever the input.
import { skipSpace } from './scan.ts';

const NOT_IN_UNQUOTED_URL = /[\s"'()]/;

function startsWithIgnoringCase(source: string, at: number, word: string): boolean {
  return source.slice(at, at + word.length).toLowerCase() === word;
}

// A quoted string starting at `from` (its quote); strings end at the same quote or, unclosed, at a newline.
function readString(source: string, from: number): { value: string | undefined; end: number } {
  const quote = source[from] as string;
  let i = from + 1;
  while (i < source.length && source[i] !== quote && source[i] !== '\n') i += 1;
  return source[i] === quote ? { value: source.slice(from + 1, i), end: i + 1 } : { value: undefined, end: i };
}

// The argument of `url(` from `from` up to and including its `)`.
function readUrl(source: string, from: number): { value: string | undefined; end: number } {
  const start = skipSpace(source, from);
  let value: string | undefined;
  let end = start;
  if (source[start] === '"' || source[start] === "'") ({ value, end } = readString(source, start));
  else {
    while (end < source.length && !NOT_IN_UNQUOTED_URL.test(source[end] as string)) end += 1;
    value = source.slice(start, end);
  }
  if (value === undefined) return { value, end };
  const close = skipSpace(source, end);
  return source[close] === ')' ? { value, end: close + 1 } : { value: undefined, end: close };
}

export function cssReferences(source: string): string[] {
  const references: string[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (ch === '@' && startsWithIgnoringCase(source, i, '@import')) {
      const start = skipSpace(source, i + '@import'.length);
      const quoted = source[start] === '"' || source[start] === "'" ? readString(source, start) : { value: undefined, end: start };
      if (quoted.value !== undefined) references.push(quoted.value.trim());
      i = quoted.end;
    } else if ((ch === 'u' || ch === 'U') && startsWithIgnoringCase(source, i, 'url(')) {
      const url = readUrl(source, i + 'url('.length);
      if (url.value !== undefined) references.push(url.value.trim());
      i = url.end;
    } else i += 1;
  }
  return references;
}
