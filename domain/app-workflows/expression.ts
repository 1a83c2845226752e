// The `=` expressions of workflow manifests: a small language read by a parser and evaluated by
// walking its tree. Never eval or Function: manifest text is untrusted. Tokenizing is one pass,
// parsing is recursive descent that consumes a token per step (depth bounded), and evaluation
// visits each node once, so time is linear in the text (bounded at 2000 characters by the schema).
//
//   literals   12  1.5  'text'  "text"  true  false  null
//   names      steps.load.rows  input.region  row.amount  items[0]  trigger.kind
//   operators  ! - (unary)  * / %  + -  < <= > >=  == !=  &&  ||  a ? b : c
//   functions  len sum min max round floor ceil abs lower upper trim concat join contains
//              startsWith coalesce map filter pluck count

export class ExpressionError extends Error {
  override name = 'ExpressionError';
  readonly position: number;
  constructor(message: string, position: number) {
    super(`${message} (at character ${position + 1})`);
    this.position = position;
  }
}

type Token =
  | { kind: 'number'; value: number; pos: number }
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'name'; value: string; pos: number }
  | { kind: 'op'; value: string; pos: number }
  | { kind: 'end'; pos: number };

const OPERATORS = ['&&', '||', '==', '!=', '<=', '>=', '<', '>', '+', '-', '*', '/', '%', '!', '(', ')', '[', ']', '.', ',', '?', ':'];
const MAX_DEPTH = 64;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const start = i;
    if (/[0-9]/.test(c)) {
      while (i < text.length && /[0-9]/.test(text[i]!)) i++;
      if (text[i] === '.' && /[0-9]/.test(text[i + 1] ?? '')) {
        i++;
        while (i < text.length && /[0-9]/.test(text[i]!)) i++;
      }
      tokens.push({ kind: 'number', value: Number(text.slice(start, i)), pos: start });
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      while (i < text.length && /[A-Za-z0-9_]/.test(text[i]!)) i++;
      tokens.push({ kind: 'name', value: text.slice(start, i), pos: start });
      continue;
    }
    if (c === "'" || c === '"') {
      let value = '';
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i];
        i++;
      }
      if (i >= text.length) throw new ExpressionError('unterminated string', start);
      i++;
      tokens.push({ kind: 'string', value, pos: start });
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op) throw new ExpressionError(`unexpected character "${c}"`, i);
    i += op.length;
    tokens.push({ kind: 'op', value: op, pos: start });
  }
  tokens.push({ kind: 'end', pos: text.length });
  return tokens;
}

export type Node =
  | { type: 'literal'; value: unknown }
  | { type: 'name'; name: string; pos: number }
  | { type: 'member'; object: Node; property: Node; pos: number }
  | { type: 'call'; fn: string; args: Node[]; pos: number }
  | { type: 'unary'; op: string; arg: Node }
  | { type: 'binary'; op: string; left: Node; right: Node; pos: number }
  | { type: 'conditional'; test: Node; then: Node; otherwise: Node };

const BINARY_LEVELS: readonly (readonly string[])[] = [['||'], ['&&'], ['==', '!='], ['<', '<=', '>', '>='], ['+', '-'], ['*', '/', '%']];

class Parser {
  private at = 0;
  private depth = 0;
  private readonly tokens: Token[];
  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }

  parse(): Node {
    const node = this.conditional();
    const next = this.peek();
    if (next.kind !== 'end') throw new ExpressionError('unexpected text after the expression', next.pos);
    return node;
  }

  private peek(): Token {
    return this.tokens[this.at]!;
  }
  private take(): Token {
    return this.tokens[this.at++]!;
  }
  private isOp(value: string): boolean {
    const t = this.peek();
    return t.kind === 'op' && t.value === value;
  }
  private expect(value: string): void {
    const t = this.take();
    if (t.kind !== 'op' || t.value !== value) throw new ExpressionError(`expected "${value}"`, t.pos);
  }
  private nested<T>(fn: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new ExpressionError('expression nested too deeply', this.peek().pos);
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  private conditional(): Node {
    return this.nested(() => {
      const test = this.binary(0);
      if (!this.isOp('?')) return test;
      this.take();
      const then = this.conditional();
      this.expect(':');
      return { type: 'conditional', test, then, otherwise: this.conditional() };
    });
  }

  private binary(level: number): Node {
    if (level === BINARY_LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op' || !BINARY_LEVELS[level]!.includes(t.value)) return left;
      this.take();
      left = { type: 'binary', op: t.value, left, right: this.binary(level + 1), pos: t.pos };
    }
  }

  private unary(): Node {
    if (this.isOp('!') || this.isOp('-')) {
      const op = (this.take() as { value: string }).value;
      return this.nested(() => ({ type: 'unary', op, arg: this.unary() }));
    }
    return this.postfix(this.primary());
  }

  private postfix(node: Node): Node {
    for (;;) {
      const t = this.peek();
      if (this.isOp('.')) {
        this.take();
        const name = this.take();
        if (name.kind !== 'name') throw new ExpressionError('expected a name after "."', name.pos);
        node = { type: 'member', object: node, property: { type: 'literal', value: name.value }, pos: t.pos };
      } else if (this.isOp('[')) {
        this.take();
        const property = this.conditional();
        this.expect(']');
        node = { type: 'member', object: node, property, pos: t.pos };
      } else return node;
    }
  }

  private primary(): Node {
    const t = this.take();
    switch (t.kind) {
      case 'number':
      case 'string':
        return { type: 'literal', value: t.value };
      case 'name': {
        if (t.value === 'true' || t.value === 'false') return { type: 'literal', value: t.value === 'true' };
        if (t.value === 'null') return { type: 'literal', value: null };
        if (!this.isOp('(')) return { type: 'name', name: t.value, pos: t.pos };
        if (!Object.hasOwn(FUNCTIONS, t.value)) throw new ExpressionError(`unknown function "${t.value}"`, t.pos);
        this.take();
        const args: Node[] = [];
        while (!this.isOp(')')) {
          if (args.length > 0) this.expect(',');
          args.push(this.conditional());
        }
        this.take();
        return { type: 'call', fn: t.value, args, pos: t.pos };
      }
      case 'op':
        if (t.value === '(') {
          const inner = this.conditional();
          this.expect(')');
          return inner;
        }
        throw new ExpressionError(`unexpected "${t.value}"`, t.pos);
      case 'end':
        throw new ExpressionError('the expression ends too early', t.pos);
    }
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const numbers = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : []);
const text = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
/** Own properties only: `constructor`, `__proto__` and friends never resolve. */
const field = (v: unknown, key: unknown): unknown => {
  if (Array.isArray(v) && typeof key === 'number') return v[key] ?? null;
  if (isRecord(v) && typeof key === 'string' && Object.hasOwn(v, key)) return v[key];
  return null;
};

// `map` and `filter` take a per-item expression; it sees the item as `item`.
type Fn = (args: unknown[]) => unknown;
const FUNCTIONS: Record<string, Fn> = {
  len: ([v]) => (Array.isArray(v) || typeof v === 'string' ? v.length : isRecord(v) ? Object.keys(v).length : 0),
  count: ([v]) => (Array.isArray(v) ? v.length : 0),
  sum: ([v]) => numbers(v).reduce((a, b) => a + b, 0),
  min: (args) => {
    const list = args.length === 1 && Array.isArray(args[0]) ? numbers(args[0]) : numbers(args);
    return list.length ? list.reduce((a, b) => Math.min(b, a)) : null;
  },
  max: (args) => {
    const list = args.length === 1 && Array.isArray(args[0]) ? numbers(args[0]) : numbers(args);
    return list.length ? list.reduce((a, b) => Math.max(b, a)) : null;
  },
  round: ([v, digits]) => {
    const f = 10 ** (typeof digits === 'number' ? Math.min(Math.max(Math.trunc(digits), 0), 12) : 0);
    return typeof v === 'number' ? Math.round(v * f) / f : null;
  },
  floor: ([v]) => (typeof v === 'number' ? Math.floor(v) : null),
  ceil: ([v]) => (typeof v === 'number' ? Math.ceil(v) : null),
  abs: ([v]) => (typeof v === 'number' ? Math.abs(v) : null),
  lower: ([v]) => text(v).toLowerCase(),
  upper: ([v]) => text(v).toUpperCase(),
  trim: ([v]) => text(v).trim(),
  concat: (args) => args.map(text).join(''),
  join: ([v, sep]) => (Array.isArray(v) ? v.map(text).join(typeof sep === 'string' ? sep : ', ') : text(v)),
  contains: ([haystack, needle]) =>
    Array.isArray(haystack) ? haystack.some((x) => x === needle) : typeof haystack === 'string' && haystack.includes(text(needle)),
  startsWith: ([v, prefix]) => typeof v === 'string' && v.startsWith(text(prefix)),
  coalesce: (args) => args.find((v) => v !== null && v !== undefined) ?? null,
  pluck: ([v, key]) => (Array.isArray(v) ? v.map((item) => field(item, key)) : []),
};
/** Functions whose second argument is evaluated once per item of the first. */
const PER_ITEM = new Set(['map', 'filter']);
for (const name of PER_ITEM) FUNCTIONS[name] = () => null;

export type Scope = Readonly<Record<string, unknown>>;

function truthy(v: unknown): boolean {
  return !(v === null || v === undefined || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0));
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  return false;
}

function arithmetic(op: string, a: unknown, b: unknown, pos: number): unknown {
  if (op === '+' && (typeof a === 'string' || typeof b === 'string')) return text(a) + text(b);
  if (typeof a !== 'number' || typeof b !== 'number') {
    if (a === null || b === null || a === undefined || b === undefined) return null;
    throw new ExpressionError(`"${op}" needs numbers`, pos);
  }
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return b === 0 ? null : a / b;
    default:
      return b === 0 ? null : a % b;
  }
}

function compare(op: string, a: unknown, b: unknown): boolean {
  if (!((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string'))) return false;
  if (op === '<') return a < b;
  if (op === '<=') return a <= b;
  if (op === '>') return a > b;
  return a >= b;
}

function evaluate(node: Node, scope: Scope): unknown {
  switch (node.type) {
    case 'literal':
      return node.value;
    case 'name':
      return Object.hasOwn(scope, node.name) ? scope[node.name] : null;
    case 'member':
      return field(evaluate(node.object, scope), evaluate(node.property, scope));
    case 'unary': {
      const v = evaluate(node.arg, scope);
      if (node.op === '!') return !truthy(v);
      return typeof v === 'number' ? -v : null;
    }
    case 'conditional':
      return truthy(evaluate(node.test, scope)) ? evaluate(node.then, scope) : evaluate(node.otherwise, scope);
    case 'binary': {
      if (node.op === '&&') {
        const left = evaluate(node.left, scope);
        return truthy(left) ? evaluate(node.right, scope) : left;
      }
      if (node.op === '||') {
        const left = evaluate(node.left, scope);
        return truthy(left) ? left : evaluate(node.right, scope);
      }
      const a = evaluate(node.left, scope);
      const b = evaluate(node.right, scope);
      if (node.op === '==') return equal(a, b);
      if (node.op === '!=') return !equal(a, b);
      if (['<', '<=', '>', '>='].includes(node.op)) return compare(node.op, a, b);
      return arithmetic(node.op, a, b, node.pos);
    }
    case 'call': {
      if (PER_ITEM.has(node.fn)) {
        const [listNode, itemNode] = node.args;
        if (!listNode || !itemNode) throw new ExpressionError(`${node.fn} needs a list and an expression`, node.pos);
        const list = evaluate(listNode, scope);
        if (!Array.isArray(list)) return [];
        if (node.fn === 'map') return list.map((item) => evaluate(itemNode, { ...scope, item }));
        return list.filter((item) => truthy(evaluate(itemNode, { ...scope, item })));
      }
      return FUNCTIONS[node.fn]!(node.args.map((arg) => evaluate(arg, scope)));
    }
  }
}

/** Parses `=…` (the leading `=` is optional here); throws ExpressionError with the position. */
export function parseExpression(source: string): Node {
  const body = source.startsWith('=') ? source.slice(1) : source;
  return new Parser(tokenize(body)).parse();
}

export function evaluateExpression(source: string | Node, scope: Scope): unknown {
  return evaluate(typeof source === 'string' ? parseExpression(source) : source, scope);
}

/** Literal text stays as it is; `=…` is evaluated. */
export function resolveValue(value: string, scope: Scope): unknown {
  return value.startsWith('=') ? evaluateExpression(value, scope) : value;
}

export const isTruthy = truthy;
export const asText = text;
