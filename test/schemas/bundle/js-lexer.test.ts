import { describe, expect, it } from 'vitest';
import { type JsToken, scanJs } from '../../../schemas/bundle/js-lexer.ts';

const tokensOf = (source: string): JsToken[] => {
  const tokens: JsToken[] = [];
  scanJs(source, (token) => tokens.push(token));
  return tokens;
};
const stringsOf = (source: string) => tokensOf(source).flatMap((t) => (t.kind === 'string' ? [t.text] : []));
const codeOf = (source: string) =>
  tokensOf(source)
    .flatMap((t) => (t.kind === 'word' || t.kind === 'punctuator' ? [t.text] : []))
    .join(' ');

describe('scanJs', () => {
  it('collects string literals of every quote kind with escapes decoded', () => {
    expect(stringsOf(`import a from "/x/a.js"; const b = 'it\\'s'; const c = \`t\${1 + f("in")}u\`;`)).toEqual([
      '/x/a.js',
      "it's",
      't',
      'in',
      'u',
    ]);
  });

  it('reads words and punctuators, with => as one token', () => {
    expect(tokensOf('const f = async (a) => a.b;')).toEqual([
      { kind: 'word', text: 'const' },
      { kind: 'word', text: 'f' },
      { kind: 'punctuator', text: '=' },
      { kind: 'word', text: 'async' },
      { kind: 'punctuator', text: '(' },
      { kind: 'word', text: 'a' },
      { kind: 'punctuator', text: ')' },
      { kind: 'punctuator', text: '=>' },
      { kind: 'word', text: 'a' },
      { kind: 'punctuator', text: '.' },
      { kind: 'word', text: 'b' },
      { kind: 'punctuator', text: ';' },
    ]);
  });

  it('skips comments', () => {
    expect(tokensOf('// "a"\n/* "b" */ fetch("c")')).toEqual([
      { kind: 'word', text: 'fetch' },
      { kind: 'punctuator', text: '(' },
      { kind: 'string', text: 'c' },
      { kind: 'punctuator', text: ')' },
    ]);
  });

  it('keeps the text of literals out of the code', () => {
    expect(codeOf('const s = "setInterval(fetch())"; go();')).toBe('const s = ; go ( ) ;');
  });

  it('tells regular expressions from division', () => {
    expect(stringsOf('const r = /"not a string"/g; const d = a / 2 / "s";')).toEqual(['s']);
    expect(stringsOf('x = (a) / 2; y = "q"')).toEqual(['q']);
    expect(stringsOf('return /[/"]/.test(v) && "w"')).toEqual(['w']);
    expect(tokensOf('return /a"b/gi.x')).toContainEqual({ kind: 'regex', text: '/a"b/gi' });
  });

  it('gives each template expression as a dollar-brace token and a brace, so braces balance', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the lexer's input is source text holding a template literal.
    const code = codeOf('function f() { return `a${ {x: 1}.x }b`; }');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the expected tokens include the template's `${`.
    expect(code).toBe('function f ( ) { return ${ { x : 1 } . x } ; }');
  });
});
