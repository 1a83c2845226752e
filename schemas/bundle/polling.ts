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

/** An open `(`: names it gives a function if it turns out to be a parameter list; an open `{`: names of the function whose body it is. */
type Open = { bracket: '(' | '{'; names: readonly string[]; setTimeoutArguments: boolean };

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
function functionNames(recent: readonly JsToken[]): string[] {
  const names: string[] = [];
  let at = recent.length - 1;
  const own = wordAt(recent, at);
  if (own !== undefined && !NOT_FUNCTIONS.has(own)) {
    names.push(own);
    at -= 1;
  }
  if (punctuatorAt(recent, at) === '*') at -= 1;
  if (wordAt(recent, at) === 'function') at -= 1;
  if (wordAt(recent, at) === 'async') at -= 1;
  const bound = wordAt(recent, at - 1);
  if (punctuatorAt(recent, at) === '=' && bound !== undefined && BINDINGS.has(wordAt(recent, at - 2) ?? '')) names.push(bound);
  return names;
}

/** Feed it every token of a file's scripts, in order; `polls` then tells whether the file polls for data. */
export class PollingDetector {
  #fetches = false;
  #interval = false;
  #rearms = false;
  #recent: JsToken[] = [];
  #open: Open[] = [];
  /** Names of the function bodies around the current token (a name may be open twice). */
  #enclosing = new Map<string, number>();
  #openSetTimeoutArguments = 0;
  /** Names of a parameter list that just closed, until a `{` (after an optional `=>`) makes them a body. */
  #pendingNames: readonly string[] = [];

  get polls(): boolean {
    return this.#fetches && (this.#interval || this.#rearms);
  }

  push(token: JsToken): void {
    const pending = this.#pendingNames;
    this.#pendingNames = [];
    if (token.kind === 'word') {
      if (token.text === 'XMLHttpRequest') this.#fetches = true;
      // A setTimeout whose arguments name a function it runs in re-arms that function.
      if (this.#openSetTimeoutArguments > 0 && this.#enclosing.has(token.text)) this.#rearms = true;
    } else if (token.kind === 'punctuator') {
      if (token.text === '(') this.#openParenthesis();
      else if (token.text === '{' || token.text === '${') this.#openBrace(token.text === '{' ? pending : []);
      else if (token.text === ')') {
        const closed = this.#close();
        if (closed?.bracket === '(') this.#pendingNames = closed.names;
      } else if (token.text === '}') this.#close();
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
    const setTimeoutArguments = callee === 'setTimeout';
    if (setTimeoutArguments) this.#openSetTimeoutArguments += 1;
    this.#open.push({ bracket: '(', names: functionNames(this.#recent), setTimeoutArguments });
  }

  #openBrace(names: readonly string[]): void {
    for (const name of names) this.#enclosing.set(name, (this.#enclosing.get(name) ?? 0) + 1);
    this.#open.push({ bracket: '{', names, setTimeoutArguments: false });
  }

  // A closer ends the innermost open bracket of either kind; one with nothing open is ignored.
  #close(): Open | undefined {
    const closed = this.#open.pop();
    if (closed?.setTimeoutArguments) this.#openSetTimeoutArguments -= 1;
    if (closed?.bracket === '{') {
      for (const name of closed.names) {
        const count = (this.#enclosing.get(name) ?? 1) - 1;
        if (count === 0) this.#enclosing.delete(name);
        else this.#enclosing.set(name, count);
      }
    }
    return closed;
  }
}
