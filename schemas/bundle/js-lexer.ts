// A small JavaScript scanner, enough for static analysis without a parser dependency. One
// forward pass hands each token to a callback: words (identifiers, keywords, numbers),
// punctuators, string literals (template literals give one string per static part, with `${`
// and the closing `}` of each expression as punctuators) and regular expressions. Comments and
// whitespace give no token, so their text never looks like code. Every character is read a
// bounded number of times and no backtracking regular expression runs on the source, so the
// cost is linear whatever the input.
import { isSpace } from './scan.ts';

export type JsToken = {
  kind: 'word' | 'punctuator' | 'string' | 'regex';
  /** Strings: the value with escapes decoded. Otherwise the source text. */
  text: string;
};

// After these words a `/` starts a regular expression rather than a division.
const REGEX_AFTER_WORDS = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };

function isWordCode(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x24
  );
}

function isFlagCode(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

export function scanJs(source: string, onToken: (token: JsToken) => void): void {
  let i = 0;
  let regexAllowed = true;
  // Brace depth of each open `${`, so that its closing `}` resumes the template literal.
  const templateDepths: number[] = [];
  let depth = 0;

  // Reads a string or template part starting at `i` (after its opening quote or `}`).
  const readQuoted = (quote: string): { value: string; end: number; opensExpression: boolean } => {
    let value = '';
    let from = i;
    let j = i;
    while (j < source.length) {
      const ch = source[j] as string;
      if (ch === '\\') {
        const next = source[j + 1] ?? '';
        value += source.slice(from, j) + (ESCAPES[next] ?? (next === '\n' ? '' : next));
        j += 2;
        from = j;
      } else if (ch === quote) return { value: value + source.slice(from, j), end: j + 1, opensExpression: false };
      else if (quote === '`' && ch === '$' && source[j + 1] === '{')
        return { value: value + source.slice(from, j), end: j + 2, opensExpression: true };
      else if (quote !== '`' && ch === '\n') return { value: value + source.slice(from, j), end: j, opensExpression: false };
      else j += 1;
    }
    return { value: value + source.slice(from), end: source.length, opensExpression: false };
  };

  // Template text from `i` to the closing backtick or the next `${`.
  const readTemplatePart = () => {
    const part = readQuoted('`');
    onToken({ kind: 'string', text: part.value });
    if (part.opensExpression) {
      onToken({ kind: 'punctuator', text: '${' });
      templateDepths.push(depth);
      depth += 1;
    }
    i = part.end;
    regexAllowed = part.opensExpression;
  };

  while (i < source.length) {
    const ch = source[i] as string;
    const next = source[i + 1];
    if (ch === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      i = end < 0 ? source.length : end;
    } else if (ch === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (ch === '"' || ch === "'") {
      i += 1;
      const part = readQuoted(ch);
      onToken({ kind: 'string', text: part.value });
      i = part.end;
      regexAllowed = false;
    } else if (ch === '`') {
      i += 1;
      readTemplatePart();
    } else if (ch === '/' && regexAllowed) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== '\n') {
        const c = source[j];
        if (c === '\\') j += 1;
        else if (c === '[') inClass = true;
        else if (c === ']') inClass = false;
        else if (c === '/' && !inClass) break;
        j += 1;
      }
      j += 1;
      while (j < source.length && isFlagCode(source.charCodeAt(j))) j += 1;
      onToken({ kind: 'regex', text: source.slice(i, j) });
      i = j;
      regexAllowed = false;
    } else if (ch === '}' && templateDepths.at(-1) === depth - 1) {
      templateDepths.pop();
      depth -= 1;
      onToken({ kind: 'punctuator', text: '}' });
      i += 1;
      readTemplatePart();
    } else if (isWordCode(source.charCodeAt(i))) {
      let j = i + 1;
      while (j < source.length && isWordCode(source.charCodeAt(j))) j += 1;
      const word = source.slice(i, j);
      onToken({ kind: 'word', text: word });
      i = j;
      regexAllowed = REGEX_AFTER_WORDS.has(word);
    } else if (isSpace(ch)) {
      i += 1;
    } else if (ch === '=' && next === '>') {
      onToken({ kind: 'punctuator', text: '=>' });
      i += 2;
      regexAllowed = true;
    } else {
      if (ch === '{') depth += 1;
      else if (ch === '}') depth -= 1;
      onToken({ kind: 'punctuator', text: ch });
      i += 1;
      regexAllowed = !(ch === ')' || ch === ']');
    }
  }
}
