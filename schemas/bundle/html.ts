// Just enough HTML reading for static analysis: opening tags with their attributes, and the
// bodies of inline <script> and <style> elements (raw text: markup inside is not read).
// Comments are skipped. A single forward scan keeps the cost linear whatever the input.

export type HtmlTag = { name: string; attributes: Map<string, string> };
export type HtmlParts = { tags: HtmlTag[]; scripts: string[]; styles: string[] };

const TAG_NAME = /<([A-Za-z][A-Za-z0-9-]*)/y;
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function attributesOf(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of text.matchAll(ATTRIBUTE)) {
    const name = (match[1] ?? '').toLowerCase();
    if (!attributes.has(name)) attributes.set(name, match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

/** Index of the `>` ending a tag whose attributes start at `from`; quotes count only after `=`. */
function tagEnd(source: string, from: number): number {
  let quote: string | undefined;
  let previous = '';
  for (let i = from; i < source.length; i += 1) {
    const ch = source[i] as string;
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
    } else if ((ch === '"' || ch === "'") && previous === '=') quote = ch;
    else if (ch === '>') return i;
    if (!/\s/.test(ch)) previous = ch;
  }
  return -1;
}

export function parseHtml(source: string): HtmlParts {
  const parts: HtmlParts = { tags: [], scripts: [], styles: [] };
  let i = 0;
  while (i < source.length) {
    const lt = source.indexOf('<', i);
    if (lt < 0) break;
    if (source.startsWith('<!--', lt)) {
      const end = source.indexOf('-->', lt + 4);
      i = end < 0 ? source.length : end + 3;
      continue;
    }
    TAG_NAME.lastIndex = lt;
    const name = TAG_NAME.exec(source)?.[1]?.toLowerCase();
    if (name === undefined) {
      i = lt + 1;
      continue;
    }
    const attributesStart = lt + 1 + name.length;
    const end = tagEnd(source, attributesStart);
    if (end < 0) break;
    parts.tags.push({ name, attributes: attributesOf(source.slice(attributesStart, end)) });
    i = end + 1;
    if (name === 'script' || name === 'style') {
      const closing = new RegExp(`</${name}`, 'gi');
      closing.lastIndex = i;
      const close = closing.exec(source)?.index ?? source.length;
      (name === 'script' ? parts.scripts : parts.styles).push(source.slice(i, close));
      const after = source.indexOf('>', close);
      i = after < 0 ? source.length : after + 1;
    }
  }
  return parts;
}
