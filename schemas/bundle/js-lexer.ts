// A small JavaScript scanner, enough for static analysis without a parser dependency: it
// finds string literals (including the static parts of template literals) and returns the
// code with comments, strings and regular expressions blanked out, so later regex searches
// see only real code and braces balance.

export type ScannedJs = { strings: string[]; code: string };

// After these tokens a `/` starts a regular expression rather than a division.
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

const WORD = /[A-Za-z0-9_$]+/y;

function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };

export function scanJs(source: string): ScannedJs {
  const strings: string[] = [];
  let code = '';
  let i = 0;
  let regexAllowed = true;
  // Brace depth of each open `${` so that its closing `}` resumes the template literal.
  const templateDepths: number[] = [];
  let depth = 0;

  // Reads a string or template part starting after its opening quote; returns the decoded value.
  const readQuoted = (quote: string): { value: string; end: number; opensExpression: boolean } => {
    let value = '';
    let j = i;
    while (j < source.length) {
      const ch = source[j] as string;
      if (ch === '\\') {
        const next = source[j + 1] ?? '';
        value += ESCAPES[next] ?? (next === '\n' ? '' : next);
        j += 2;
      } else if (ch === quote) return { value, end: j + 1, opensExpression: false };
      else if (quote === '`' && ch === '$' && source[j + 1] === '{') return { value, end: j + 2, opensExpression: true };
      else if (quote !== '`' && ch === '\n') return { value, end: j, opensExpression: false };
      else {
        value += ch;
        j += 1;
      }
    }
    return { value, end: j, opensExpression: false };
  };

  // Reads template text from `i` (just after the opening backtick, or after the `}` closing
  // an expression) to the closing backtick or the next `${`.
  const readTemplatePart = (resumed: boolean) => {
    const part = readQuoted('`');
    strings.push(part.value);
    code += (resumed ? '' : '`') + blank(source.slice(i, part.end - (part.opensExpression ? 2 : 1))) + (part.opensExpression ? '${' : '`');
    if (part.opensExpression) {
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
      const stop = end < 0 ? source.length : end;
      code += blank(source.slice(i, stop));
      i = stop;
    } else if (ch === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : end + 2;
      code += blank(source.slice(i, stop));
      i = stop;
    } else if (ch === '"' || ch === "'") {
      i += 1;
      const part = readQuoted(ch);
      strings.push(part.value);
      code += ch + blank(source.slice(i, part.end - 1)) + ch;
      i = part.end;
      regexAllowed = false;
    } else if (ch === '`') {
      i += 1;
      readTemplatePart(false);
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
      while (j < source.length && /[a-z]/i.test(source[j] as string)) j += 1;
      code += '/' + blank(source.slice(i + 1, j - 1)) + '/';
      i = j;
      regexAllowed = false;
    } else if (ch === '}' && templateDepths.at(-1) === depth - 1) {
      templateDepths.pop();
      depth -= 1;
      code += '}';
      i += 1;
      readTemplatePart(true);
    } else if (/[A-Za-z0-9_$]/.test(ch)) {
      WORD.lastIndex = i;
      const word = WORD.exec(source)?.[0] ?? ch;
      code += word;
      i += word.length;
      regexAllowed = REGEX_AFTER_WORDS.has(word);
    } else {
      if (ch === '{') depth += 1;
      else if (ch === '}') depth -= 1;
      code += ch;
      i += 1;
      if (!/\s/.test(ch)) regexAllowed = !(ch === ')' || ch === ']');
    }
  }
  return { strings, code };
}
