// Detects code that polls for data: a timer (setInterval, or a setTimeout that re-arms the
// function it runs in) in the same file as a data fetch. Works on code whose comments and
// literals are blanked (js-lexer.ts) and stays linear in the code length.

const INTERVAL = /\bsetInterval\s*\(/;
// fetch(), XMLHttpRequest, and query calls of the semantic SDK (and its legacy `data` name).
const DATA_FETCH = /\bfetch\s*\(|\bXMLHttpRequest\b|\b(?:semantic|data)\s*\.\s*(?:query|objects|list|get|search|aggregate|sql)\s*\(/;
// Starts of named functions up to the `(` of their parameters: declarations, function or
// arrow expressions bound with const/let/var, and class or object methods.
const FUNCTION_STARTS = [
  /\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(/g,
  /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:function\s*\*?\s*[\w$]*\s*)?\(/g,
  /^[ \t]*(?:async\s+)?([A-Za-z_$][\w$]*)\s*\(/gm,
];
const NOT_FUNCTIONS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'function', 'return']);
const SET_TIMEOUT = /\bsetTimeout\s*\(/g;
const IDENTIFIER = /[A-Za-z_$][\w$]*/g;
// Re-arming calls are short (`setTimeout(poll, 5000)`); longer arguments are not read.
const MAX_ARGUMENTS = 300;

/** For every ( and { its matching closer (or the end when unbalanced). */
function matchingBrackets(code: string): Map<number, number> {
  const pairs = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < code.length; i += 1) {
    const ch = code[i];
    if (ch === '(' || ch === '{') open.push(i);
    else if (ch === ')' || ch === '}') {
      const start = open.pop();
      if (start !== undefined) pairs.set(start, i);
    }
  }
  for (const start of open) pairs.set(start, code.length);
  return pairs;
}

type FunctionBody = { name: string; open: number; close: number };

function functionBodies(code: string, pairs: Map<number, number>): FunctionBody[] {
  const bodies: FunctionBody[] = [];
  for (const pattern of FUNCTION_STARTS) {
    for (const match of code.matchAll(pattern)) {
      const name = match[1] ?? '';
      if (NOT_FUNCTIONS.has(name)) continue;
      const paramsClose = pairs.get((match.index ?? 0) + match[0].length - 1) ?? code.length;
      const rest = /^\s*(?:=>\s*)?\{/.exec(code.slice(paramsClose + 1, paramsClose + 64));
      if (!rest) continue;
      const open = paramsClose + rest[0].length;
      bodies.push({ name, open, close: pairs.get(open) ?? code.length });
    }
  }
  return bodies.sort((a, b) => a.open - b.open);
}

// setTimeout re-armed: a setTimeout inside a named function whose arguments name that function.
function rearmsTimeout(code: string): boolean {
  const pairs = matchingBrackets(code);
  const bodies = functionBodies(code, pairs);
  const enclosing: FunctionBody[] = [];
  const activeNames = new Map<string, number>();
  let next = 0;
  for (const call of code.matchAll(SET_TIMEOUT)) {
    const argsOpen = (call.index ?? 0) + call[0].length - 1;
    // Sweep: enter bodies that start before the call, leave those that ended before it.
    for (; next < bodies.length && (bodies[next]?.open ?? Infinity) < argsOpen; next += 1) {
      const body = bodies[next] as FunctionBody;
      while (enclosing.length > 0 && (enclosing.at(-1)?.close ?? 0) < body.open) leave(enclosing, activeNames);
      enclosing.push(body);
      activeNames.set(body.name, (activeNames.get(body.name) ?? 0) + 1);
    }
    while (enclosing.length > 0 && (enclosing.at(-1)?.close ?? 0) < argsOpen) leave(enclosing, activeNames);
    const args = code.slice(argsOpen + 1, Math.min(pairs.get(argsOpen) ?? code.length, argsOpen + 1 + MAX_ARGUMENTS));
    if ((args.match(IDENTIFIER) ?? []).some((word) => activeNames.has(word))) return true;
  }
  return false;
}

function leave(enclosing: FunctionBody[], activeNames: Map<string, number>): void {
  const body = enclosing.pop();
  if (body === undefined) return;
  const count = (activeNames.get(body.name) ?? 1) - 1;
  if (count === 0) activeNames.delete(body.name);
  else activeNames.set(body.name, count);
}

export function pollsForData(code: string): boolean {
  return DATA_FETCH.test(code) && (INTERVAL.test(code) || rearmsTimeout(code));
}
