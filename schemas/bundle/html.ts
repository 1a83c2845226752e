// Just enough HTML reading for static analysis: opening tags with their attributes, and the
// bodies of inline <script> and <style> elements (raw text: markup inside is not read).
// Comments are skipped. One forward scan, by hand or with patterns that match one way only,
// reads each character a bounded number of times, so the cost is linear whatever the input.
import { skipSpace } from './scan.ts';

/** `offset`: where the tag's `<` is in the source; `end`: where its closing `>` is. */
export type HtmlTag = { name: string; attributes: Map<string, string>; offset: number; end: number };
/** An inline `<script>` element's tag and its raw text (empty for `<script src>`). */
export type HtmlScript = { tag: HtmlTag; text: string };
export type HtmlParts = { tags: HtmlTag[]; scripts: HtmlScript[]; styles: string[] };

const TAG_NAME = /<([A-Za-z][A-Za-z0-9-]*)/y;
const RAW_TEXT_END = { script: /<\/script/gi, style: /<\/style/gi };
const NOT_IN_NAME = /[\s"'<>/=]/;
const NOT_IN_UNQUOTED_VALUE = /[\s"'=<>`]/;

// The value after an `=`: quoted (a quote counts only here), unquoted, or empty. Undefined when
// a quote never closes: the rest of the document is then inside this tag.
function readValue(source: string, from: number): { value: string; end: number } | undefined {
  const start = skipSpace(source, from);
  const quote = source[start];
  if (quote === '"' || quote === "'") {
    const close = source.indexOf(quote, start + 1);
    return close < 0 ? undefined : { value: source.slice(start + 1, close), end: close + 1 };
  }
  let end = start;
  while (end < source.length && !NOT_IN_UNQUOTED_VALUE.test(source[end] as string)) end += 1;
  return { value: source.slice(start, end), end };
}

/** Attributes of a tag whose name ends at `from`, and the index of its closing `>`; undefined when it never closes. */
function readTag(source: string, from: number): { attributes: Map<string, string>; end: number } | undefined {
  const attributes = new Map<string, string>();
  let i = from;
  while (i < source.length) {
    const ch = source[i] as string;
    if (ch === '>') return { attributes, end: i };
    if (ch === '=') {
      // A stray `=` (no name before it): its value is read so that a quoted `>` does not end the tag.
      const stray = readValue(source, i + 1);
      if (stray === undefined) return undefined;
      i = stray.end;
    } else if (NOT_IN_NAME.test(ch)) i += 1;
    else {
      let nameEnd = i + 1;
      while (nameEnd < source.length && !NOT_IN_NAME.test(source[nameEnd] as string)) nameEnd += 1;
      const name = source.slice(i, nameEnd).toLowerCase();
      const equals = skipSpace(source, nameEnd);
      const value = source[equals] === '=' ? readValue(source, equals + 1) : { value: '', end: nameEnd };
      if (value === undefined) return undefined;
      // The first of repeated attributes counts, as in browsers.
      if (!attributes.has(name)) attributes.set(name, value.value);
      i = value.end;
    }
  }
  return undefined;
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
    const tag = readTag(source, lt + 1 + name.length);
    if (tag === undefined) break;
    const element = { name, attributes: tag.attributes, offset: lt, end: tag.end };
    parts.tags.push(element);
    i = tag.end + 1;
    if (name === 'script' || name === 'style') {
      const closing = RAW_TEXT_END[name];
      closing.lastIndex = i;
      const close = closing.exec(source)?.index ?? source.length;
      const text = source.slice(i, close);
      if (name === 'script') parts.scripts.push({ tag: element, text });
      else parts.styles.push(text);
      const after = source.indexOf('>', close);
      i = after < 0 ? source.length : after + 1;
    }
  }
  return parts;
}
