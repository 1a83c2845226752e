// Detects code that polls for data: a timer (setInterval, or a setTimeout that re-arms the
// function it runs in) in the same file as a data fetch. It reads the tokens of js-lexer.ts one
// at a time, keeping the open brackets and the last few tokens, so its cost is linear in the
// number of tokens whatever their arrangement.
import type { JsToken } from './js-lexer.ts';

// Query calls of the semantic SDK (and its legacy `data` name): `semantic.query(`.
const DATA_OBJECTS = new Set(['semantic', 'data']);
const DATA_METHODS = new Set(['query', 'objects', 'list', 'get', 'search', 'aggregate', 'sql']);
const BINDINGS = new Set(['const', 'let', 'var']);
// Words that can stand before `(...) {` without naming a function.
const NOT_FUNCTIONS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'function', 'return', 'async']);
// Enough look-behind for the longest function start: `const name = async function * own (`.
const RECENT_TOKENS = 7;

const NO_NAMES: readonly string[] = [];
// What each open bracket is. Two flat arrays (kinds, names) rather than an object per bracket
// keep deep nesting (a megabyte of `(`) cheap.
const PARENTHESIS = 0;
const SET_TIMEOUT_ARGUMENTS = 1;
const BRACE = 2;

function wordAt(tokens: readonly JsToken[], index: number): string | undefined {
  const token = tokens[index];
  return token?.kind === 'word' ? token.text : undefined;
}

function punctuatorAt(tokens: readonly JsToken[], index: number): string | undefined {
  const token = tokens[index];
  return token?.kind === 'punctuator' ? token.text : undefined;
}

// Names of the function whose parameter list a `(` after `recent` opens: `function* own(`,
// a method `own(`, and the binding of `const name = async function (` or `const name = (`.
function functionNames(recent: readonly JsToken[]): readonly string[] {
  let at = recent.length - 1;
  const own = wordAt(recent, at);
  const isOwn = own !== undefined && !NOT_FUNCTIONS.has(own);
  if (isOwn) at -= 1;
  if (punctuatorAt(recent, at) === '*') at -= 1;
  if (wordAt(recent, at) === 'function') at -= 1;
  if (wordAt(recent, at) === 'async') at -= 1;
  const bound = wordAt(recent, at - 1);
  const isBound = punctuatorAt(recent, at) === '=' && bound !== undefined && BINDINGS.has(wordAt(recent, at - 2) ?? '');
  if (isOwn && isBound) return [own, bound];
  return isOwn ? [own] : isBound ? [bound] : NO_NAMES;
}

/** Feed it every token of a file's scripts, in order; `polls` then tells whether the file polls for data. */
export class PollingDetector {
  #fetches = false;
  #interval = false;
  #rearms = false;
  #recent: JsToken[] = [];
  #open: number[] = [];
  /** An open `(`: the names it gives a function if it is a parameter list; an open `{`: the names of the function whose body it is. */
  #openNames: (readonly string[])[] = [];
  /** Names of the function bodies around the current token (a name may be open twice). */
  #enclosing = new Map<string, number>();
  #openSetTimeoutArguments = 0;
  /** Names of a parameter list that just closed, until a `{` (after an optional `=>`) makes them a body. */
  #pendingNames: readonly string[] = NO_NAMES;

  get polls(): boolean {
    return this.#fetches && (this.#interval || this.#rearms);
  }

  push(token: JsToken): void {
    const pending = this.#pendingNames;
    this.#pendingNames = NO_NAMES;
    if (token.kind === 'word') {
      if (token.text === 'XMLHttpRequest') this.#fetches = true;
      // A setTimeout whose arguments name a function it runs in re-arms that function.
      if (this.#openSetTimeoutArguments > 0 && this.#enclosing.has(token.text)) this.#rearms = true;
    } else if (token.kind === 'punctuator') {
      if (token.text === '(') this.#openParenthesis();
      else if (token.text === '{') this.#openBrace(pending);
      else if (token.text === '${') this.#openBrace(NO_NAMES);
      else if (token.text === ')') this.#pendingNames = this.#close();
      else if (token.text === '}') this.#close();
      else if (token.text === '=>') this.#pendingNames = pending;
    }
    this.#recent.push(token);
    if (this.#recent.length > RECENT_TOKENS) this.#recent.shift();
  }

  #openParenthesis(): void {
    const callee = wordAt(this.#recent, this.#recent.length - 1);
    const object = wordAt(this.#recent, this.#recent.length - 3);
    const dotted = punctuatorAt(this.#recent, this.#recent.length - 2) === '.';
    if (callee === 'fetch' || (dotted && DATA_METHODS.has(callee ?? '') && DATA_OBJECTS.has(object ?? ''))) this.#fetches = true;
    if (callee === 'setInterval') this.#interval = true;
    if (callee === 'setTimeout') this.#openSetTimeoutArguments += 1;
    this.#push(callee === 'setTimeout' ? SET_TIMEOUT_ARGUMENTS : PARENTHESIS, functionNames(this.#recent));
  }

  #openBrace(names: readonly string[]): void {
    for (const name of names) this.#enclosing.set(name, (this.#enclosing.get(name) ?? 0) + 1);
    this.#push(BRACE, names);
  }

  #push(bracket: number, names: readonly string[]): void {
    this.#open.push(bracket);
    this.#openNames.push(names);
  }

  // A closer ends the innermost open bracket of either kind; one with nothing open is ignored.
  // Returns the names a closed parameter list gives its function.
  #close(): readonly string[] {
    const bracket = this.#open.pop();
    const names = this.#openNames.pop() ?? NO_NAMES;
    if (bracket === SET_TIMEOUT_ARGUMENTS) this.#openSetTimeoutArguments -= 1;
    if (bracket !== BRACE) return names;
    for (const name of names) {
      const count = (this.#enclosing.get(name) ?? 1) - 1;
      if (count === 0) this.#enclosing.delete(name);
      else this.#enclosing.set(name, count);
    }
    return NO_NAMES;
  }
}
