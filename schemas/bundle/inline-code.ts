// What a page runs as inline code, and what scripts it loads. An app page's Content-Security-
// Policy has neither 'unsafe-inline' nor a nonce or hash in script-src (api/hosting/headers.ts),
// so the browser runs none of that inline code: the deploy warns (csp-warnings.ts). The rules
// are the HTML standard's ("prepare the script element", event handler attributes), so only
// what would run is reported: a data block (`type="application/json"`), an empty script, a
// `nomodule` classic script (modern browsers skip it anyway) and inline styles (style-src allows
// them) are not.
import type { HtmlParts, HtmlScript, HtmlTag } from './html.ts';
import type { JsToken } from './js-lexer.ts';

export type InlineCode = { kind: 'script' | 'handler'; tag: HtmlTag; what: string };

// The standard's JavaScript MIME type essences; any other type but these keywords is a data block.
const JS_TYPES = new Set([
  'application/ecmascript',
  'application/javascript',
  'application/x-ecmascript',
  'application/x-javascript',
  'text/ecmascript',
  'text/javascript',
  'text/javascript1.0',
  'text/javascript1.1',
  'text/javascript1.2',
  'text/javascript1.3',
  'text/javascript1.4',
  'text/javascript1.5',
  'text/jscript',
  'text/livescript',
  'text/x-ecmascript',
  'text/x-javascript',
]);
const OTHER_RUNNING_TYPES = new Set(['module', 'importmap', 'speculationrules']);
// The event handler attributes: `on` and an event name, those of Chromium's elements (the
// standard's and the CSS, pointer and touch events'). Another `on…` attribute does nothing.
const EVENTS = new Set(
  [
    'abort afterprint animationcancel animationend animationiteration animationstart auxclick beforecopy',
    'beforecut beforeinput beforematch beforepaste beforeprint beforetoggle beforeunload beforexrselect',
    'blur cancel canplay canplaythrough change click close command contentvisibilityautostatechange',
    'contextlost contextmenu contextrestored copy cuechange cut dblclick drag dragend dragenter dragleave',
    'dragover dragstart drop durationchange emptied encrypted ended error focus formdata fullscreenchange',
    'fullscreenerror gamepadconnected gamepaddisconnected gotpointercapture hashchange input invalid',
    'keydown keypress keyup languagechange load loadeddata loadedmetadata loadstart lostpointercapture',
    'message messageerror mousedown mouseenter mouseleave mousemove mouseout mouseover mouseup mousewheel',
    'offline online pagehide pageshow paste pause play playing pointercancel pointerdown pointerenter',
    'pointerleave pointermove pointerout pointerover pointerup popstate progress ratechange',
    'rejectionhandled reset resize scroll scrollend scrollsnapchange scrollsnapchanging search',
    'securitypolicyviolation seeked seeking select selectionchange selectstart slotchange stalled storage',
    'submit suspend timeupdate toggle touchcancel touchend touchmove touchstart transitioncancel',
    'transitionend transitionrun transitionstart unhandledrejection unload volumechange waiting',
    'waitingforkey webkitanimationend webkitanimationiteration webkitanimationstart',
    'webkitfullscreenchange webkitfullscreenerror webkittransitionend wheel',
  ]
    .join(' ')
    .split(' '),
);
const isEventHandler = (name: string) => name.startsWith('on') && EVENTS.has(name.slice(2));
const URL_ATTRIBUTES = ['href', 'src', 'action', 'formaction'] as const;
const JAVASCRIPT_SCHEME = 'javascript:';

const isAsciiSpace = (ch: string | undefined) => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\f' || ch === '\r';

/** ASCII whitespace stripped and ASCII letters lowercased, as the standard compares types. */
function normalizeType(type: string): string {
  let start = 0;
  let end = type.length;
  while (start < end && isAsciiSpace(type[start])) start += 1;
  while (end > start && isAsciiSpace(type[end - 1])) end -= 1;
  return type.slice(start, end).replace(/[A-Z]/g, (ch) => ch.toLowerCase());
}

/** Whether a URL parser reads `javascript:` as the scheme: it drops leading C0 controls and spaces, and tabs and newlines anywhere. */
function isJavascriptUrl(value: string): boolean {
  let i = 0;
  while (i < value.length && value.charCodeAt(i) <= 0x20) i += 1;
  let matched = 0;
  for (; i < value.length && matched < JAVASCRIPT_SCHEME.length; i += 1) {
    const ch = value[i] as string;
    if (ch === '\t' || ch === '\n' || ch === '\r') continue;
    const expected = JAVASCRIPT_SCHEME[matched] as string;
    if (ch !== expected && ch !== expected.toUpperCase()) return false;
    matched += 1;
  }
  return matched === JAVASCRIPT_SCHEME.length;
}

/** The script's type as the standard determines it: undefined for a data block. */
function scriptType(tag: HtmlTag): string | undefined {
  const type = tag.attributes.get('type');
  const language = tag.attributes.get('language');
  const written = type !== undefined && type !== '' ? type : type === undefined && language ? `text/${language}` : 'text/javascript';
  const normalized = normalizeType(written);
  if (JS_TYPES.has(normalized)) return 'classic';
  return OTHER_RUNNING_TYPES.has(normalized) ? normalized : undefined;
}

function runsInline(script: HtmlScript): boolean {
  const { tag, text } = script;
  if (tag.attributes.has('src') || text.trim() === '') return false;
  const type = scriptType(tag);
  return type !== undefined && !(type === 'classic' && tag.attributes.has('nomodule'));
}

/** Inline code of a page, in document order per kind. */
export function inlineCode(html: HtmlParts): InlineCode[] {
  const scripts: InlineCode[] = html.scripts.filter(runsInline).map(({ tag }) => ({ kind: 'script', tag, what: '<script>' }));
  const handlers = html.tags.flatMap((tag): InlineCode[] => {
    const found: InlineCode[] = [];
    for (const [name, value] of tag.attributes) {
      if (isEventHandler(name) && value.trim() !== '') found.push({ kind: 'handler', tag, what: `${name} on <${tag.name}>` });
    }
    for (const name of URL_ATTRIBUTES) {
      const value = tag.attributes.get(name);
      if (value !== undefined && isJavascriptUrl(value))
        found.push({ kind: 'handler', tag, what: `${name}="javascript:…" on <${tag.name}>` });
    }
    return found;
  });
  return [...scripts, ...handlers];
}

/** The addresses a page loads scripts from with `<script src>`. */
export function scriptSources(html: HtmlParts): string[] {
  return html.scripts.flatMap(({ tag }) => {
    const src = tag.attributes.get('src');
    return src === undefined || src.trim() === '' || scriptType(tag) === undefined ? [] : [src.trim()];
  });
}

/**
 * Collects module specifiers from JavaScript tokens: `import … from "x"`, `export … from "x"`,
 * `import "x"` and `import("x")`. Keeps the last two tokens only, so it is linear.
 */
export class ImportSpecifiers {
  readonly specifiers: string[] = [];
  #previous: JsToken | undefined;
  #beforePrevious: JsToken | undefined;

  push(token: JsToken): void {
    const previous = this.#previous;
    if (token.kind === 'string' && previous !== undefined) {
      const word = previous.kind === 'word' ? previous.text : undefined;
      const dynamic = previous.text === '(' && this.#beforePrevious?.kind === 'word' && this.#beforePrevious.text === 'import';
      if (word === 'from' || word === 'import' || dynamic) this.specifiers.push(token.text.trim());
    }
    this.#beforePrevious = previous;
    this.#previous = token;
  }
}
