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

const KEY_LINE = /^([A-Za-z][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$/;
// Characters that start non-scalar YAML constructs in a plain value.
const YAML_INDICATOR = /^[[\]{}&*!|>%@`#,?-]/;

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
    const match = KEY_LINE.exec(line);
    if (!match || match[1] === undefined) return { ok: false, message: `line ${lineNo}: expected "key: value" on one line` };
    const value = parseValue(match[2] ?? '');
    if (value === undefined) return { ok: false, message: `line ${lineNo}: value of "${match[1]}" is not a single-line scalar (quote it)` };
    if (fields.has(match[1])) return { ok: false, message: `line ${lineNo}: duplicate key "${match[1]}"` };
    fields.set(match[1], value);
  }
  return { ok: true, fields, body: lines.slice(end + 1).join('\n') };
}
