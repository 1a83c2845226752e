import { describe, expect, it } from 'vitest';
import { analyzeFiles } from '../../../schemas/bundle/analyze.ts';
import { cssReferences } from '../../../schemas/bundle/css.ts';
import { parseHtml } from '../../../schemas/bundle/html.ts';

const analyze = (path: string, text: string) => analyzeFiles([{ index: 0, path, bytes: Buffer.from(text), text }])[0];

describe('parseHtml', () => {
  it('reads tags, attributes, inline scripts and styles, ignoring comments', () => {
    const html = parseHtml(
      '<!-- <script src="/gone.js"></script> --><div data-evolve=hero class="a"><script type=module>if (a < b) x("<p>")</script><style>p{}</style><img src=\'x.png\'>',
    );
    expect(html.tags.map((t) => t.name)).toEqual(['div', 'script', 'style', 'img']);
    expect(html.tags[0]?.attributes.get('data-evolve')).toBe('hero');
    expect(html.tags[3]?.attributes.get('src')).toBe('x.png');
    expect(html.scripts.map((s) => [s.tag.attributes.get('type'), s.text])).toEqual([['module', 'if (a < b) x("<p>")']]);
    expect(html.tags.map((t) => t.offset)).toEqual([41, 73, 121, 139]);
    expect(html.styles).toEqual(['p{}']);
  });
});

describe('parseHtml edge cases', () => {
  it('reads > inside quoted attribute values and unquoted values with quotes', () => {
    const html = parseHtml("<a title=\"a > b\" href=/x.html>t</a><p data-x=it's class='c'>");
    expect(html.tags[0]?.attributes.get('href')).toBe('/x.html');
    expect(html.tags[1]?.attributes.get('class')).toBe('c');
  });

  it('reads the first of repeated attributes, valueless ones, and quotes only after =', () => {
    const [tag] = parseHtml('<script defer src = "/a.js" src="/b.js" data-x="y>z" =\'w>v\' title=t>').tags;
    expect(Object.fromEntries(tag?.attributes ?? [])).toEqual({ defer: '', src: '/a.js', 'data-x': 'y>z', title: 't' });
  });

  it('takes an unclosed script as running to the end', () => {
    expect(parseHtml('<script>let a = "</scr" + "ipt>";').scripts.map((s) => s.text)).toEqual(['let a = "</scr" + "ipt>";']);
    expect(parseHtml('<SCRIPT>x()</Script ><b>').tags.map((t) => t.name)).toEqual(['script', 'b']);
  });
});

describe('cssReferences', () => {
  it('finds @import and url() but not comments', () => {
    expect(cssReferences('@import "/a.css"; @import url(/b.css); /* url(/c.png) */ .x { background: url( "d.png" ) }')).toEqual([
      '/a.css',
      '/b.css',
      'd.png',
    ]);
  });

  it('reads @import without a space, in any case, and skips url( that never closes', () => {
    expect(cssReferences('@IMPORT"/a.css"; .x { background: URL(b.png) } .y { background: url( c.png d.png) } url("e.png"')).toEqual([
      '/a.css',
      'b.png',
    ]);
  });
});

describe('analyzeFiles', () => {
  it('html: script src, link href, inline script strings and inline style urls', () => {
    const result = analyze(
      'index.html',
      '<script src="/s.js"></script><link href="/l.css"><a href="/not-a-resource"></a><script>import("/d.js")</script><style>@import "/i.css";</style>',
    );
    expect(result?.references).toEqual(['/s.js', '/l.css', '/d.js', '/i.css']);
  });

  it('js and css files; other files are not analysed', () => {
    expect(analyze('a.mjs', 'import "/m.js"')?.references).toEqual(['/m.js']);
    expect(analyze('a.css', 'a{background:url(/bg.png)}')?.references).toEqual(['/bg.png']);
    expect(analyze('a.json', '{"a": "/x.js"}')).toBeUndefined();
  });

  it('collects data-evolve slots from every tag', () => {
    expect(analyze('index.html', '<section data-evolve="hero"></section><div data-evolve=\'cta\'></div>')?.slots).toEqual(['hero', 'cta']);
  });
});

describe('cost on adversarial input', () => {
  // Each input is quadratic for a naive regex-based reader (minutes at this size).
  const size = 1024 * 1024;
  it.each([
    ['index.html', '<a'],
    ['index.html', '<a "'],
    ['index.html', '<script>'],
    ['index.html', '<!--'],
    ['a.css', 'url('],
    ['a.css', '@import "'],
    ['a.js', 'a(\n'],
    ['a.js', 'function a(){'],
  ])('%s made of %j', (path, unit) => {
    const started = performance.now();
    analyze(path, unit.repeat(Math.floor(size / unit.length)));
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
