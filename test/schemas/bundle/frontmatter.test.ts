import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../../schemas/bundle/frontmatter.ts';

const fields = (source: string) => {
  const result = parseFrontmatter(source);
  if (!result.ok) throw new Error(result.message);
  return Object.fromEntries(result.fields);
};

describe('parseFrontmatter', () => {
  it('reads plain, single- and double-quoted values and the body', () => {
    const result = parseFrontmatter('---\nname: sales\ndescription: "Say \\"hi\\": now"\nother: \'it\'\'s\'\n\n---\n# Body\n');
    expect(result).toEqual({
      ok: true,
      fields: new Map([
        ['name', 'sales'],
        ['description', 'Say "hi": now'],
        ['other', "it's"],
      ]),
      body: '# Body\n',
    });
  });

  it('accepts CRLF line endings and a BOM', () => {
    expect(fields('\ufeff---\r\nname: a\r\n---\r\nbody')).toEqual({ name: 'a' });
  });

  it('reads an empty value, a tab after the colon and surrounding spaces', () => {
    expect(fields('---\nname:\ndescription:\t  two words  \n---\nbody')).toEqual({ name: '', description: 'two words' });
  });

  it.each([
    ['no opening line', 'name: a\n---\nbody'],
    ['unclosed', '---\nname: a\nbody'],
    ['not key: value', '---\njust text\n---\nbody'],
    ['continuation line', '---\ndescription: a\n  b\n---\nbody'],
    ['block scalar', '---\ndescription: |\n---\nbody'],
    ['list', '---\ndescription: [a, b]\n---\nbody'],
    ['mapping in plain value', '---\ndescription: a: b\n---\nbody'],
    ['comment in plain value', '---\ndescription: a #b\n---\nbody'],
    ['bad double quote', '---\ndescription: "a\n---\nbody'],
    ['text after double quote', '---\ndescription: "a" b\n---\nbody'],
    ['bad single quote', "---\ndescription: 'a'b'\n---\nbody"],
    ['duplicate key', '---\nname: a\nname: b\n---\nbody'],
    ['no space after the colon', '---\nname:a\n---\nbody'],
    ['a line separator in a value', '---\ndescription: a\u2028b\n---\nbody'],
    ['a lone carriage return in a value', '---\ndescription: a\rb\n---\nbody'],
  ])('rejects %s', (_label, source) => {
    expect(parseFrontmatter(source).ok).toBe(false);
  });
});
