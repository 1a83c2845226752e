// A deliberately small, strict subset of YAML frontmatter for SKILL.md:
//
//   ---
//   name: my-skill
//   description: "One line; plain, 'single-quoted' or \"double-quoted\" (JSON escapes)"
//   ---
//   body...
//
// One `key: value` per line, blank lines allowed; no nesting, lists, block scalars, anchors or
// continuation lines, so a value never means something other than what it looks like.

export type Frontmatter = { ok: true; fields: Map<string, string>; body: string } | { ok: false; message: string };

const KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;
// Line breaks other than \n (which already split the lines): a value must stay on one line.
const OTHER_LINE_BREAK = /[\r\u2028\u2029]/;
// Characters that start non-scalar YAML constructs in a plain value.
const YAML_INDICATOR = /^[[\]{}&*!|>%@`#,?-]/;

// `key:` alone or `key:` then a space or tab and the raw value. Split by hand: the pattern
// `key:[ \t]+(.*)$` backtracks quadratically over a long run of spaces before a \u2028.
function splitKeyLine(line: string): { key: string; raw: string } | undefined {
  const colon = line.indexOf(':');
  if (colon < 0) return undefined;
  const key = line.slice(0, colon);
  const raw = line.slice(colon + 1);
  const separated = raw === '' || raw.startsWith(' ') || raw.startsWith('\t');
  return KEY.test(key) && separated && !OTHER_LINE_BREAK.test(raw) ? { key, raw } : undefined;
}

function parseValue(raw: string): string | undefined {
  const text = raw.trim();
  if (text.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }
  if (text.startsWith("'")) {
    if (text.length < 2 || !text.endsWith("'")) return undefined;
    const inner = text.slice(1, -1);
    return inner.replaceAll("''", '').includes("'") ? undefined : inner.replaceAll("''", "'");
  }
  if (YAML_INDICATOR.test(text) || text.includes(': ') || text.includes(' #')) return undefined;
  return text;
}

export function parseFrontmatter(source: string): Frontmatter {
  const text = source.replace(/^\ufeff/, '').replaceAll('\r\n', '\n');
  const lines = text.split('\n');
  if (lines[0] !== '---') return { ok: false, message: 'must start with a --- frontmatter line' };
  const end = lines.indexOf('---', 1);
  if (end < 0) return { ok: false, message: 'frontmatter is not closed by a --- line' };
  const fields = new Map<string, string>();
  for (const [offset, line] of lines.slice(1, end).entries()) {
    if (line.trim() === '') continue;
    const lineNo = offset + 2;
    const pair = splitKeyLine(line);
    if (pair === undefined) return { ok: false, message: `line ${lineNo}: expected "key: value" on one line` };
    const value = parseValue(pair.raw);
    if (value === undefined) return { ok: false, message: `line ${lineNo}: value of "${pair.key}" is not a single-line scalar (quote it)` };
    if (fields.has(pair.key)) return { ok: false, message: `line ${lineNo}: duplicate key "${pair.key}"` };
    fields.set(pair.key, value);
  }
  return { ok: true, fields, body: lines.slice(end + 1).join('\n') };
}
