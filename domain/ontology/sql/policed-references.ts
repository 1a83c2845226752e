import { fieldsOf, isObject, type Json } from './parse-tree.ts';

// Ontology SQL over a type its security policies filter for the caller (issue 29): every reference
// to the type's table in the query (FROM, JOIN, subqueries, CTEs, however nested) is found in
// PostgreSQL's parse tree and later replaced, in the text, by the derived table search reads
// (domain/ontology/object-security.ts `policedRows`), so no row or property the policies hide is
// ever read, counted or joined. A reference whose name this cannot read back exactly from the
// text (a comment between its parts, a Unicode-escaped identifier) is refused rather than left
// unfiltered. Pure: runs on the parser thread beside the allowlist.

/** One reference to a policed table: its name's span in the text (character offsets, end exclusive). */
export interface PolicedReference {
  start: number;
  end: number;
  relation: string;
  /** The query names the reference (`AS c`): the derived table takes the query's alias. */
  aliased: boolean;
}

/** Keys under which libpg_query puts a RangeVar: wrapped (`{ RangeVar: … }`), or bare in `relation` / `rel`. */
const RANGE_VAR_KEYS = new Set(['RangeVar', 'relation', 'rel']);

/** Character offset of each byte offset the parser reports (identity for ASCII text). */
function charOffsetOf(text: string): (byte: number) => number {
  if (Buffer.byteLength(text, 'utf8') === text.length) return (byte) => byte;
  const offsets = new Int32Array(Buffer.byteLength(text, 'utf8') + 1);
  let byte = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.codePointAt(i)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    for (let k = 0; k < size; k++) offsets[byte + k] = i;
    byte += size;
    if (code >= 0x10000) i++;
  }
  offsets[byte] = text.length;
  return (b) => offsets[b]!;
}

const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

/** The identifier at `i` as PostgreSQL reads it (quoted as written, unquoted ASCII-lower-cased) and where it ends. */
function identifierAt(text: string, i: number): { name: string; end: number } | undefined {
  if (text[i] === '"') {
    let name = '';
    for (let j = i + 1; j < text.length; j++) {
      if (text[j] !== '"') {
        name += text[j];
        continue;
      }
      if (text[j + 1] !== '"') return { name, end: j + 1 };
      name += '"';
      j++;
    }
    return undefined;
  }
  if (!IDENT_START.test(text[i] ?? '')) return undefined;
  let j = i + 1;
  while (j < text.length && IDENT_PART.test(text[j]!)) j++;
  return { name: text.slice(i, j).replace(/[A-Z]/g, (c) => c.toLowerCase()), end: j };
}

/** `name` or `schema . name` at `i`, plain whitespace only around the dot. */
function qualifiedNameAt(text: string, i: number): { parts: string[]; end: number } | undefined {
  const first = identifierAt(text, i);
  if (!first) return undefined;
  let j = first.end;
  while (/\s/.test(text[j] ?? '')) j++;
  if (text[j] !== '.') return { parts: [first.name], end: first.end };
  j++;
  while (/\s/.test(text[j] ?? '')) j++;
  const second = identifierAt(text, j);
  return second ? { parts: [first.name, second.name], end: second.end } : undefined;
}

/**
 * The references to `policed` tables (apiNames of the company's schema) in a parse tree the
 * allowlist accepted, or a refusal. Iterative and linear in the tree.
 */
export function policedReferences(
  tree: { stmts?: readonly unknown[] },
  text: string,
  schemaName: string,
  policed: readonly string[],
): { references: PolicedReference[] } | { errorName: 'RelationNotAllowed'; message: string; position?: number } {
  const references: PolicedReference[] = [];
  if (policed.length === 0) return { references };
  const wanted = new Set(policed);
  const charOf = charOffsetOf(text);
  for (const [key, child] of fieldsOf((tree.stmts ?? []) as Json[])) {
    if (!RANGE_VAR_KEYS.has(key) || !isObject(child) || typeof child.relname !== 'string' || !wanted.has(child.relname)) continue;
    const schema = typeof child.schemaname === 'string' ? child.schemaname : undefined;
    if (schema !== undefined && schema !== schemaName) continue;
    const expected = schema === undefined ? [child.relname] : [schema, child.relname];
    const at = typeof child.location === 'number' && child.location >= 0 ? charOf(child.location) : -1;
    const found = at < 0 ? undefined : qualifiedNameAt(text, at);
    if (!found || JSON.stringify(found.parts) !== JSON.stringify(expected)) {
      return {
        errorName: 'RelationNotAllowed',
        message: `Name the object type ${JSON.stringify(child.relname)} plainly ("apiName" or "schema"."apiName", no comment inside): it is read through its security policies.`,
        ...(at >= 0 ? { position: at + 1 } : {}),
      };
    }
    references.push({ start: at, end: found.end, relation: child.relname, aliased: isObject(child.alias) });
  }
  return { references: references.sort((a, b) => a.start - b.start) };
}

/**
 * The query with each reference replaced by its table's derived table (`selects`: the SQL text of
 * each policed table's rows, parenthesised), aliased as the table unless the query aliases it, and
 * a map from a position in the new text back to the user's (an error's position names their text).
 */
export function rewritePolicedSql(
  text: string,
  references: readonly PolicedReference[],
  selects: ReadonlyMap<string, string>,
): { text: string; originalPosition: (position: number) => number } {
  let out = '';
  let from = 0;
  const spans: { start: number; end: number; originalStart: number; shift: number }[] = [];
  for (const r of references) {
    out += text.slice(from, r.start);
    const replacement = `${selects.get(r.relation)!}${r.aliased ? '' : ` AS "${r.relation.replaceAll('"', '""')}"`}`;
    spans.push({ start: out.length, end: out.length + replacement.length, originalStart: r.start, shift: 0 });
    out += replacement;
    from = r.end;
    spans.at(-1)!.shift = out.length - from;
  }
  out += text.slice(from);
  // 1-based positions: inside a replacement, the reference it replaced; after one, shifted back.
  const originalPosition = (position: number) => {
    let shift = 0;
    for (const s of spans) {
      if (position - 1 < s.start) break;
      if (position - 1 < s.end) return s.originalStart + 1;
      shift = s.shift;
    }
    return position - shift;
  };
  return { text: out, originalPosition };
}
