// The `=` expressions of workflow manifests: a small language read by a parser and evaluated by
// walking its tree. Never eval or Function: manifest text is untrusted. Tokenizing is one pass and
// parsing is recursive descent that consumes a token per step (depth bounded), so reading is linear
// in the text (at most 2000 characters by the schema). Evaluation is NOT linear: `map` and `filter`
// evaluate their item expression once per item, so nesting multiplies (five nested maps over 35
// items is 35^5 ≈ 52 million evaluations). What bounds it is the evaluation budget: every node
// evaluated, every item an iterating function visits and every character a string function builds
// counts as a step, every value built into a new list or string counts its JSON size as output,
// and both are checked before the work is done, so any expression over any input stops with
// BudgetExceededError after at most EVALUATION_LIMITS of work (plus one pass over its input to size
// it). Runs and APIs evaluate on worker threads (evaluation-threads.ts), never on the event loop.
//
//   literals   12  1.5  'text'  "text"  true  false  null
//   names      steps.load.rows  input.region  row.amount  items[0]  trigger.kind
//   operators  ! - (unary)  * / %  + -  < <= > >=  == !=  &&  ||  a ? b : c
//   functions  len sum min max round floor ceil abs lower upper trim concat join contains
//              startsWith coalesce map filter pluck count

export class ExpressionError extends Error {
  override name = 'ExpressionError';
  /** The message without the position. */
  readonly reason: string;
  readonly position: number | undefined;
  constructor(reason: string, position?: number) {
    super(position === undefined ? reason : `${reason} (at character ${position + 1})`);
    this.reason = reason;
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
  | { type: 'literal'; value: unknown; pos: number }
  | { type: 'name'; name: string; pos: number }
  | { type: 'member'; object: Node; property: Node; pos: number }
  | { type: 'call'; fn: string; args: Node[]; pos: number }
  | { type: 'unary'; op: string; arg: Node; pos: number }
  | { type: 'binary'; op: string; left: Node; right: Node; pos: number }
  | { type: 'conditional'; test: Node; then: Node; otherwise: Node; pos: number };

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
      const pos = this.take().pos;
      const then = this.conditional();
      this.expect(':');
      return { type: 'conditional', test, then, otherwise: this.conditional(), pos };
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
      const { value: op, pos } = this.take() as { value: string; pos: number };
      return this.nested(() => ({ type: 'unary', op, arg: this.unary(), pos }));
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
        node = { type: 'member', object: node, property: { type: 'literal', value: name.value, pos: name.pos }, pos: t.pos };
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
        return { type: 'literal', value: t.value, pos: t.pos };
      case 'name': {
        if (t.value === 'true' || t.value === 'false') return { type: 'literal', value: t.value === 'true', pos: t.pos };
        if (t.value === 'null') return { type: 'literal', value: null, pos: t.pos };
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

export interface EvaluationLimits {
  /** Nodes evaluated, items visited by iterating functions, characters built by string functions. */
  readonly steps: number;
  /** JSON size of the lists and strings built. */
  readonly outputBytes: number;
  /** Whose budget this is, for the message when it runs out (default: this evaluation's). */
  readonly of?: string | undefined;
}

/**
 * The budget of one evaluation, or of all of a step's expressions together (a run's steps also
 * share RUN_EVALUATION_LIMITS, evaluation-threads.ts). Outputs above 1 MiB could hardly pass
 * through a run anyway (Temporal refuses payloads of 2 MB), and 1 million steps is about 0.02 to
 * 0.5 s of a worker thread.
 */
export const EVALUATION_LIMITS: EvaluationLimits = { steps: 1_000_000, outputBytes: 1024 * 1024 };

/** The budget ran out: the expression (or the step's expressions) needs more work than allowed. */
export class BudgetExceededError extends ExpressionError {
  override name = 'BudgetExceededError';
}

const primitiveSize = (v: unknown): number =>
  typeof v === 'string' ? v.length + 2 : typeof v === 'number' && Number.isFinite(v) ? String(v).length : v === true ? 4 : 5;

/**
 * Counts work before it is done and refuses the step that would pass a limit, so the counters
 * never exceed the limits. Sizes of values are their JSON length, memoised per object, so a list
 * of the input is measured once however often an expression reaches it.
 */
export class EvaluationBudget {
  readonly limits: EvaluationLimits;
  steps = 0;
  outputBytes = 0;
  readonly #sizes = new WeakMap<object, number>();

  constructor(limits: EvaluationLimits = EVALUATION_LIMITS) {
    this.limits = limits;
  }

  spend(steps: number, pos?: number): void {
    if (this.steps + steps > this.limits.steps)
      throw new BudgetExceededError(`evaluation budget exceeded: more than ${this.limits.steps} steps${this.#whose()}`, pos);
    this.steps += steps;
  }

  produce(bytes: number, pos?: number): void {
    if (this.outputBytes + bytes > this.limits.outputBytes)
      throw new BudgetExceededError(`evaluation budget exceeded: output larger than ${this.limits.outputBytes} bytes${this.#whose()}`, pos);
    this.outputBytes += bytes;
  }

  #whose(): string {
    return this.limits.of === undefined ? '' : `, ${this.limits.of}`;
  }

  /** A string of `chars` characters about to be built: each character is a step and a byte of output. */
  build(chars: number, pos?: number): void {
    this.spend(chars, pos);
    this.produce(chars, pos);
  }

  /** A list the evaluator built, with the size already counted for it. */
  remember(built: object, size: number): void {
    this.#sizes.set(built, size);
  }

  /** The JSON length of a value (about: escapes not counted), each object walked once, without recursion. */
  sizeOf(value: unknown): number {
    if (value === null || typeof value !== 'object') return primitiveSize(value);
    const known = this.#sizes.get(value);
    if (known !== undefined) return known;
    const pending: [object, boolean][] = [[value, false]];
    while (pending.length > 0) {
      const [obj, childrenSized] = pending.pop() as [object, boolean];
      if (this.#sizes.has(obj)) continue;
      const entries: [string | null, unknown][] = Array.isArray(obj) ? obj.map((v) => [null, v]) : Object.entries(obj);
      if (!childrenSized) {
        pending.push([obj, true]);
        for (const [, v] of entries) if (v !== null && typeof v === 'object' && !this.#sizes.has(v)) pending.push([v, false]);
        continue;
      }
      let size = 2;
      for (const [key, v] of entries) {
        size += 1 + (key === null ? 0 : key.length + 3);
        size += v !== null && typeof v === 'object' ? (this.#sizes.get(v) ?? 0) : primitiveSize(v);
      }
      this.#sizes.set(obj, size);
    }
    return this.#sizes.get(value) ?? 0;
  }
}

/** Text of a value for string functions: an object's JSON is counted as built before it is. */
export function textOf(v: unknown, budget: EvaluationBudget, pos?: number): string {
  if (v === null || typeof v !== 'object') return text(v);
  budget.build(budget.sizeOf(v), pos);
  return JSON.stringify(v);
}

/** Builds a string from parts, counting its characters first. */
function joined(parts: readonly string[], separator: string, budget: EvaluationBudget, pos: number): string {
  let chars = Math.max(0, parts.length - 1) * separator.length;
  for (const part of parts) chars += part.length;
  budget.build(chars, pos);
  return parts.join(separator);
}

/** A list the evaluator built: each value counted as output at its size. */
function built(list: unknown[], budget: EvaluationBudget, pos: number): unknown[] {
  let size = 2;
  for (const v of list) {
    const bytes = budget.sizeOf(v) + 1;
    budget.produce(bytes, pos);
    size += bytes;
  }
  budget.remember(list, size);
  return list;
}

/** A string function's result whose length may differ from its input's (case mapping, trimming). */
function mapped(s: string, fn: (s: string) => string, budget: EvaluationBudget, pos: number): string {
  budget.build(s.length, pos);
  const out = fn(s);
  if (out.length > s.length) budget.build(out.length - s.length, pos);
  return out;
}

const listOf = (args: unknown[]): unknown[] => (args.length === 1 && Array.isArray(args[0]) ? args[0] : args);

// `map` and `filter` take a per-item expression; it sees the item as `item`. Every function
// counts the items it visits and the characters it builds before doing so.
type Fn = (args: unknown[], budget: EvaluationBudget, pos: number) => unknown;
const FUNCTIONS: Record<string, Fn> = {
  len: ([v], budget, pos) => {
    if (Array.isArray(v) || typeof v === 'string') return v.length;
    if (!isRecord(v)) return 0;
    const keys = Object.keys(v);
    budget.spend(keys.length, pos);
    return keys.length;
  },
  count: ([v]) => (Array.isArray(v) ? v.length : 0),
  sum: ([v], budget, pos) => {
    if (Array.isArray(v)) budget.spend(v.length, pos);
    return numbers(v).reduce((a, b) => a + b, 0);
  },
  min: (args, budget, pos) => {
    const list = listOf(args);
    budget.spend(list.length, pos);
    const values = numbers(list);
    return values.length ? values.reduce((a, b) => Math.min(b, a)) : null;
  },
  max: (args, budget, pos) => {
    const list = listOf(args);
    budget.spend(list.length, pos);
    const values = numbers(list);
    return values.length ? values.reduce((a, b) => Math.max(b, a)) : null;
  },
  round: ([v, digits]) => {
    const f = 10 ** (typeof digits === 'number' ? Math.min(Math.max(Math.trunc(digits), 0), 12) : 0);
    return typeof v === 'number' ? Math.round(v * f) / f : null;
  },
  floor: ([v]) => (typeof v === 'number' ? Math.floor(v) : null),
  ceil: ([v]) => (typeof v === 'number' ? Math.ceil(v) : null),
  abs: ([v]) => (typeof v === 'number' ? Math.abs(v) : null),
  lower: ([v], budget, pos) => mapped(textOf(v, budget, pos), (s) => s.toLowerCase(), budget, pos),
  upper: ([v], budget, pos) => mapped(textOf(v, budget, pos), (s) => s.toUpperCase(), budget, pos),
  trim: ([v], budget, pos) => mapped(textOf(v, budget, pos), (s) => s.trim(), budget, pos),
  concat: (args, budget, pos) => {
    budget.spend(args.length, pos);
    return joined(
      args.map((v) => textOf(v, budget, pos)),
      '',
      budget,
      pos,
    );
  },
  join: ([v, sep], budget, pos) => {
    if (!Array.isArray(v)) return textOf(v, budget, pos);
    budget.spend(v.length, pos);
    return joined(
      v.map((item) => textOf(item, budget, pos)),
      typeof sep === 'string' ? sep : ', ',
      budget,
      pos,
    );
  },
  contains: ([haystack, needle], budget, pos) => {
    if (Array.isArray(haystack)) {
      for (const x of haystack) {
        budget.spend(1 + sameLengthStrings(x, needle), pos);
        if (x === needle) return true;
      }
      return false;
    }
    if (typeof haystack !== 'string') return false;
    const wanted = textOf(needle, budget, pos);
    budget.spend(haystack.length + wanted.length, pos);
    return haystack.includes(wanted);
  },
  startsWith: ([v, prefix], budget, pos) => {
    if (typeof v !== 'string') return false;
    const wanted = textOf(prefix, budget, pos);
    budget.spend(wanted.length, pos);
    return v.startsWith(wanted);
  },
  coalesce: (args) => args.find((v) => v !== null && v !== undefined) ?? null,
  pluck: ([v, key], budget, pos) => {
    if (!Array.isArray(v)) return [];
    budget.spend(v.length, pos);
    return built(
      v.map((item) => field(item, key)),
      budget,
      pos,
    );
  },
};
/** Functions whose second argument is evaluated once per item of the first. */
const PER_ITEM = new Set(['map', 'filter']);
for (const name of PER_ITEM) FUNCTIONS[name] = () => null;

/** Comparing two strings of equal length may read all their characters. */
const sameLengthStrings = (a: unknown, b: unknown): number =>
  typeof a === 'string' && typeof b === 'string' && a.length === b.length ? a.length : 0;

export type Scope = Readonly<Record<string, unknown>>;

function truthy(v: unknown): boolean {
  return !(v === null || v === undefined || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0));
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  return false;
}

function arithmetic(op: string, a: unknown, b: unknown, budget: EvaluationBudget, pos: number): unknown {
  if (op === '+' && (typeof a === 'string' || typeof b === 'string'))
    return joined([textOf(a, budget, pos), textOf(b, budget, pos)], '', budget, pos);
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

function evaluate(node: Node, scope: Scope, budget: EvaluationBudget): unknown {
  budget.spend(1, node.pos);
  switch (node.type) {
    case 'literal':
      return node.value;
    case 'name':
      return Object.hasOwn(scope, node.name) ? scope[node.name] : null;
    case 'member':
      return field(evaluate(node.object, scope, budget), evaluate(node.property, scope, budget));
    case 'unary': {
      const v = evaluate(node.arg, scope, budget);
      if (node.op === '!') return !truthy(v);
      return typeof v === 'number' ? -v : null;
    }
    case 'conditional':
      return truthy(evaluate(node.test, scope, budget)) ? evaluate(node.then, scope, budget) : evaluate(node.otherwise, scope, budget);
    case 'binary': {
      if (node.op === '&&') {
        const left = evaluate(node.left, scope, budget);
        return truthy(left) ? evaluate(node.right, scope, budget) : left;
      }
      if (node.op === '||') {
        const left = evaluate(node.left, scope, budget);
        return truthy(left) ? left : evaluate(node.right, scope, budget);
      }
      const a = evaluate(node.left, scope, budget);
      const b = evaluate(node.right, scope, budget);
      if (['==', '!=', '<', '<=', '>', '>='].includes(node.op)) {
        // Strings compare character by character.
        budget.spend(typeof a === 'string' && typeof b === 'string' ? Math.min(a.length, b.length) : 0, node.pos);
        if (node.op === '==') return equal(a, b);
        if (node.op === '!=') return !equal(a, b);
        return compare(node.op, a, b);
      }
      return arithmetic(node.op, a, b, budget, node.pos);
    }
    case 'call': {
      if (PER_ITEM.has(node.fn)) {
        const [listNode, itemNode] = node.args;
        if (!listNode || !itemNode) throw new ExpressionError(`${node.fn} needs a list and an expression`, node.pos);
        const list = evaluate(listNode, scope, budget);
        if (!Array.isArray(list)) return [];
        const out: unknown[] = [];
        for (const item of list) {
          budget.spend(1, node.pos);
          const value = evaluate(itemNode, { ...scope, item }, budget);
          if (node.fn === 'map') out.push(value);
          else if (truthy(value)) out.push(item);
        }
        return built(out, budget, node.pos);
      }
      return FUNCTIONS[node.fn]!(
        node.args.map((arg) => evaluate(arg, scope, budget)),
        budget,
        node.pos,
      );
    }
  }
}

/** Parses `=…` (the leading `=` is optional here); throws ExpressionError with the position. */
export function parseExpression(source: string): Node {
  const body = source.startsWith('=') ? source.slice(1) : source;
  return new Parser(tokenize(body)).parse();
}

/**
 * Evaluates within `budget` (a fresh EVALUATION_LIMITS one unless given: pass one to share it
 * between expressions). Throws ExpressionError, BudgetExceededError when the budget runs out.
 */
export function evaluateExpression(source: string | Node, scope: Scope, budget = new EvaluationBudget()): unknown {
  return evaluate(typeof source === 'string' ? parseExpression(source) : source, scope, budget);
}

/** Literal text stays as it is; `=…` is evaluated. */
export function resolveValue(value: string, scope: Scope, budget = new EvaluationBudget()): unknown {
  return value.startsWith('=') ? evaluateExpression(value, scope, budget) : value;
}

/**
 * How deep `map`/`filter` item expressions nest: each level multiplies the work by a list's
 * length. Deploy refuses deeper than MAX_PER_ITEM_NESTING; the budget bounds every depth anyway.
 */
export function perItemNesting(node: Node): number {
  switch (node.type) {
    case 'literal':
    case 'name':
      return 0;
    case 'member':
      return Math.max(perItemNesting(node.object), perItemNesting(node.property));
    case 'unary':
      return perItemNesting(node.arg);
    case 'binary':
      return Math.max(perItemNesting(node.left), perItemNesting(node.right));
    case 'conditional':
      return Math.max(perItemNesting(node.test), perItemNesting(node.then), perItemNesting(node.otherwise));
    case 'call':
      return Math.max(0, ...node.args.map((arg, i) => perItemNesting(arg) + (PER_ITEM.has(node.fn) && i === 1 ? 1 : 0)));
  }
}
export const MAX_PER_ITEM_NESTING = 3;

export const isTruthy = truthy;
