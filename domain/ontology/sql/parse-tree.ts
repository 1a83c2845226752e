// libpg_query's parse tree (`{ stmts: [{ stmt: { SelectStmt: {…} } }] }`) read as plain JSON, and
// the one walk over it that the allowlist (sql-allowlist.ts) and the policed references
// (policed-references.ts) make.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every field of every object in the tree, as [name, value]. Iterative, so its stack does not
 * depend on the tree's depth; linear in the tree, which is linear in the text.
 */
export function* fieldsOf(root: Json): Generator<[string, Json]> {
  const stack: Json[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    if (!isObject(value)) continue;
    for (const [key, child] of Object.entries(value)) {
      yield [key, child];
      if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
}
