import { parseHtml } from '../../schemas/bundle/index.ts';
import type { EvolveChange, OverlayView } from '../../schemas/evolve.ts';
import type { Manifest } from '../../schemas/manifest/index.ts';
import { declaredOf } from './declared.ts';

// An overlay: the improvements that apply to one visitor (company-wide, then their own personal
// ones, oldest first: a later change of the same token or slot field wins), resolved against the
// version the visitor opens. What that version no longer declares is left out, values are held
// within the token's current range, and improvements the version has baked in (`evolve.baked`)
// no longer apply at runtime.

export interface StoredImprovement {
  id: string;
  changes: EvolveChange[];
}

export function resolveOverlay(
  app: string,
  version: { version: string; manifest: Manifest },
  improvements: readonly StoredImprovement[],
): OverlayView {
  const declared = declaredOf(version.manifest);
  const tokens = new Map<string, OverlayView['tokens'][number]>();
  const slots = new Map<string, OverlayView['slots'][number]>();
  const applied: string[] = [];
  for (const improvement of improvements) {
    if (declared.baked.has(improvement.id)) continue;
    let used = false;
    for (const change of improvement.changes) {
      if (change.kind === 'token') {
        const token = declared.tokens.get(change.token);
        if (!token) continue;
        const value = Math.min(token.max, Math.max(token.min, change.value));
        tokens.set(token.name, { slot: declared.slots.get(token.slot) ?? token.slot, token: token.name, value, unit: token.unit ?? '' });
      } else {
        const slot = declared.slots.get(change.slot);
        if (!slot) continue;
        const now = slots.get(slot) ?? { slot };
        if (change.text !== undefined) now.text = change.text;
        if (change.hidden !== undefined) now.hidden = change.hidden;
        if (change.order !== undefined) now.order = change.order;
        slots.set(slot, now);
      }
      used = true;
    }
    if (used) applied.push(improvement.id);
  }
  return { app, version: version.version, improvements: applied, tokens: [...tokens.values()], slots: [...slots.values()] };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeText = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** Elements without content: their text is never replaced. */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
/** Raw-text elements: never given text (a script's or style's content is code). */
const NEVER = new Set(['script', 'style', 'template', 'textarea', 'title', 'iframe', 'object', 'noscript']);

const HEAD_END = /<\/head\s*>/i;

/**
 * The entry page with the overlay applied: one `<style>` (token values as CSS custom properties
 * on their regions, order, hidden regions) and the new text of text-changed regions, written as
 * text. Never a script, never markup from an improvement; names in selectors are the manifest's
 * slot names (a strict pattern) and values are numbers. Linear in the page's size.
 */
export function renderOverlay(html: string, overlay: OverlayView, manifest: Manifest): string {
  if (overlay.tokens.length === 0 && overlay.slots.length === 0) return html;
  const declared = declaredOf(manifest);
  const selector = (slot: string) => (declared.regions.get(slot) ?? [slot]).map((n) => `:root [data-evolve="${n}"]`).join(',');
  const rules: string[] = [];
  const bySlot = new Map<string, string[]>();
  for (const t of overlay.tokens) bySlot.set(t.slot, [...(bySlot.get(t.slot) ?? []), `${t.token}:${t.value}${t.unit}`]);
  for (const s of overlay.slots) {
    const props = bySlot.get(s.slot) ?? [];
    if (s.order !== undefined) props.push(`order:${s.order}`);
    if (s.hidden) props.push('display:none!important');
    bySlot.set(s.slot, props);
  }
  for (const [slot, props] of bySlot) if (props.length) rules.push(`${selector(slot)}{${props.join(';')}}`);
  const texts = new Map<string, string>();
  for (const s of overlay.slots) {
    if (s.text === undefined) continue;
    for (const n of declared.regions.get(s.slot) ?? [s.slot]) texts.set(n, s.text);
  }
  const withText = texts.size ? replaceRegionTexts(html, texts) : html;
  if (!rules.length) return withText;
  const style = `<style data-svc-evolve>${rules.join('')}</style>`;
  // Last in the head, so that the page's own rules of the same weight come before it.
  const end = HEAD_END.exec(withText);
  return end ? withText.slice(0, end.index) + style + withText.slice(end.index) : style + withText;
}

/** Replaces the content of each region whose `data-evolve` names a slot in `texts` (a region inside a replaced one goes with it). */
function replaceRegionTexts(html: string, texts: ReadonlyMap<string, string>): string {
  const { tags } = parseHtml(html);
  const parts: string[] = [];
  // Element names with no end tag after some region: none after any later one either (so each
  // search that reaches the page's end runs once per name, and the whole stays linear).
  const unclosed = new Set<string>();
  let copied = 0;
  tags.forEach((tag, index) => {
    if (tag.offset < copied) return;
    const name = tag.attributes.get('data-evolve')?.trim();
    const text = name === undefined ? undefined : texts.get(name);
    if (text === undefined || VOID.has(tag.name) || NEVER.has(tag.name) || unclosed.has(tag.name)) return;
    const close = closingTagOf(html, tags, index);
    if (close === undefined) {
      unclosed.add(tag.name);
      return;
    }
    parts.push(html.slice(copied, tag.end + 1), escapeText(text));
    copied = close;
  });
  parts.push(html.slice(copied));
  return parts.join('');
}

/** Where the element opened by `tags[index]` closes (the `<` of its end tag), counting nested elements of its name. */
function closingTagOf(html: string, tags: ReturnType<typeof parseHtml>['tags'], index: number): number | undefined {
  const open = tags[index]!;
  const closing = new RegExp(`</${open.name}\\s*>`, 'gi');
  closing.lastIndex = open.end + 1;
  let depth = 0;
  let next = index + 1;
  for (let m = closing.exec(html); m; m = closing.exec(html)) {
    // Same-name elements opened before this end tag nest one level each.
    while (next < tags.length && tags[next]!.offset < m.index) {
      if (tags[next]!.name === open.name) depth += 1;
      next += 1;
    }
    if (depth === 0) return m.index;
    depth -= 1;
  }
  return undefined;
}
