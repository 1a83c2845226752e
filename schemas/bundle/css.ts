// URLs a stylesheet refers to: @import "..." and url(...) (which also covers @import url(...)).
// Quoted parts are bounded and unquoted ones stop at any bracket, so scanning stays linear.
const IMPORT_STRING = /@import\s+(?:"([^"\n]{0,2048})"|'([^'\n]{0,2048})')/gi;
const URL_FUNCTION = /url\(\s*(?:"([^"\n]{0,2048})"|'([^'\n]{0,2048})'|([^"'()\s]{0,2048}))\s*\)/gi;

export function cssReferences(source: string): string[] {
  const css = source.replace(/\/\*[\s\S]*?(?:\*\/|$)/g, '');
  return [...css.matchAll(IMPORT_STRING), ...css.matchAll(URL_FUNCTION)].map((match) => (match[1] ?? match[2] ?? match[3] ?? '').trim());
}
