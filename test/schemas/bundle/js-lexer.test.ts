import { describe, expect, it } from 'vitest';
import { scanJs } from '../../../schemas/bundle/js-lexer.ts';

describe('scanJs', () => {
  it('collects string literals of every quote kind with escapes decoded', () => {
    expect(scanJs(`import a from "/x/a.js"; const b = 'it\\'s'; const c = \`t\${1 + f("in")}u\`;`).strings).toEqual([
      '/x/a.js',
      "it's",
      't',
      'in',
      'u',
    ]);
  });

  it('skips comments', () => {
    const { strings, code } = scanJs('// "a"\n/* "b" */ fetch("c")');
    expect(strings).toEqual(['c']);
    expect(code).not.toContain('a');
    expect(code).toContain('fetch(');
  });

  it('blanks literals in the code so their text does not look like code', () => {
    const { code } = scanJs('const s = "setInterval(fetch())"; go();');
    expect(code).not.toContain('setInterval');
    expect(code).toContain('go()');
  });

  it('tells regular expressions from division', () => {
    expect(scanJs('const r = /"not a string"/g; const d = a / 2 / "s";').strings).toEqual(['s']);
    expect(scanJs('x = (a) / 2; y = "q"').strings).toEqual(['q']);
    expect(scanJs('return /[/"]/.test(v) && "w"').strings).toEqual(['w']);
  });

  it('keeps braces balanced across template expressions', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the lexer's input is source text holding a template literal.
    const { code } = scanJs('function f() { return `a${ {x: 1}.x }b`; }');
    expect([...code].filter((c) => c === '{').length).toBe([...code].filter((c) => c === '}').length);
  });
});
