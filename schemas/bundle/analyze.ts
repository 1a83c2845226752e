// One pass over each text file that can reference other files or run code (html, js, css).
// The results feed SDK registration, evolve slots and the polling warning.

import { cssReferences } from './css.ts';
import type { DecodedFile } from './decode.ts';
import { extensionOf } from './file-types.ts';
import { parseHtml } from './html.ts';
import { scanJs } from './js-lexer.ts';

export type FileAnalysis = {
  file: DecodedFile;
  /** URLs and string literals that may name another resource. */
  references: string[];
  /** `data-evolve` region names declared in markup. */
  slots: string[];
  /** Script code with comments and literals blanked (see js-lexer.ts). */
  code: string;
};

const ANALYSED = { html: 'html', htm: 'html', js: 'js', mjs: 'js', css: 'css' } as const;
const HTML_REFERENCE_ATTRIBUTES = { script: 'src', link: 'href' } as const;

function analyzeText(kind: 'html' | 'js' | 'css', text: string): Omit<FileAnalysis, 'file'> {
  if (kind === 'css') return { references: cssReferences(text), slots: [], code: '' };
  if (kind === 'js') {
    const { strings, code } = scanJs(text);
    return { references: strings, slots: [], code };
  }
  const html = parseHtml(text);
  const scripts = html.scripts.map(scanJs);
  const attributeReferences = html.tags.flatMap((tag) => {
    const attribute = Object.hasOwn(HTML_REFERENCE_ATTRIBUTES, tag.name)
      ? HTML_REFERENCE_ATTRIBUTES[tag.name as keyof typeof HTML_REFERENCE_ATTRIBUTES]
      : undefined;
    const value = attribute === undefined ? undefined : tag.attributes.get(attribute);
    return value === undefined ? [] : [value.trim()];
  });
  return {
    references: [...attributeReferences, ...scripts.flatMap((s) => s.strings), ...html.styles.flatMap(cssReferences)],
    slots: html.tags.flatMap((tag) => {
      const slot = tag.attributes.get('data-evolve');
      return slot === undefined ? [] : [slot.trim()];
    }),
    code: scripts.map((s) => s.code).join('\n;\n'),
  };
}

export function analyzeFiles(files: readonly DecodedFile[]): FileAnalysis[] {
  return files.flatMap((file) => {
    const kind = Object.hasOwn(ANALYSED, extensionOf(file.path)) ? ANALYSED[extensionOf(file.path) as keyof typeof ANALYSED] : undefined;
    return kind === undefined || file.text === undefined ? [] : [{ file, ...analyzeText(kind, file.text) }];
  });
}
