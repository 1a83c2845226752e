// Character helpers shared by the hand-written scanners (js-lexer, html, css).

const SPACE = /\s/;

/** Whether one character is JavaScript whitespace (`\s`, which HTML and CSS whitespace is part of). */
export function isSpace(ch: string): boolean {
  return SPACE.test(ch);
}

/** Index of the first non-whitespace character at or after `from` (the length if none). */
export function skipSpace(source: string, from: number): number {
  let i = from;
  while (i < source.length && isSpace(source[i] as string)) i += 1;
  return i;
}
