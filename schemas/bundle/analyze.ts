// One pass over each text file that can reference other files or run code (html, js, css).
// The results feed SDK registration, evolve slots and the warnings (polling, the page's
// Content-Security-Policy).

import { cssReferences } from './css.ts';
import type { DecodedFile } from './decode.ts';
import { extensionOf } from './file-types.ts';
import { parseHtml } from './html.ts';
import { ImportSpecifiers, type InlineCode, inlineCode, scriptSources } from './inline-code.ts';
import { scanJs } from './js-lexer.ts';
import { PollingDetector } from './polling.ts';

export type FileAnalysis = {
  file: DecodedFile;
  /** URLs and string literals that may name another resource. */
  references: string[];
  /** `data-evolve` region names declared in markup. */
  slots: string[];
  /** The file's script code polls for data (polling.ts). */
  polls: boolean;
  /** Addresses the file loads scripts from: a page's `<script src>`, a script's imports. */
  scriptSources: string[];
  /** A page's inline code (inline-code.ts). */
  inline: InlineCode[];
};

const ANALYSED = { html: 'html', htm: 'html', js: 'js', mjs: 'js', css: 'css' } as const;
const HTML_REFERENCE_ATTRIBUTES = { script: 'src', link: 'href' } as const;
// The scripts of a page run as one program; a `;` between them keeps the end of one from
// reading as the start of a function body in the next.
const SCRIPT_SEPARATOR = { kind: 'punctuator', text: ';' } as const;

function analyzeScripts(scripts: readonly string[]): { strings: string[]; polls: boolean; imports: string[] } {
  const strings: string[] = [];
  const polling = new PollingDetector();
  const imports = new ImportSpecifiers();
  for (const script of scripts) {
    scanJs(script, (token) => {
      if (token.kind === 'string') strings.push(token.text);
      polling.push(token);
      imports.push(token);
    });
    polling.push(SCRIPT_SEPARATOR);
    imports.push(SCRIPT_SEPARATOR);
  }
  return { strings, polls: polling.polls, imports: imports.specifiers };
}

function analyzeText(kind: 'html' | 'js' | 'css', text: string): Omit<FileAnalysis, 'file'> {
  if (kind === 'css') return { references: cssReferences(text), slots: [], polls: false, scriptSources: [], inline: [] };
  if (kind === 'js') {
    const { strings, polls, imports } = analyzeScripts([text]);
    return { references: strings, slots: [], polls, scriptSources: imports, inline: [] };
  }
  const html = parseHtml(text);
  // Inline scripts are analysed like files (SDK use, polling), though the page's policy blocks
  // them: they are reported as inline code, and their imports never load.
  const scripts = analyzeScripts(html.scripts.map((script) => script.text));
  const attributeReferences = html.tags.flatMap((tag) => {
    const attribute = Object.hasOwn(HTML_REFERENCE_ATTRIBUTES, tag.name)
      ? HTML_REFERENCE_ATTRIBUTES[tag.name as keyof typeof HTML_REFERENCE_ATTRIBUTES]
      : undefined;
    const value = attribute === undefined ? undefined : tag.attributes.get(attribute);
    return value === undefined ? [] : [value.trim()];
  });
  return {
    references: [...attributeReferences, ...scripts.strings, ...html.styles.flatMap(cssReferences)],
    slots: html.tags.flatMap((tag) => {
      const slot = tag.attributes.get('data-evolve');
      return slot === undefined ? [] : [slot.trim()];
    }),
    polls: scripts.polls,
    scriptSources: scriptSources(html),
    inline: inlineCode(html),
  };
}

export function analyzeFiles(files: readonly DecodedFile[]): FileAnalysis[] {
  return files.flatMap((file) => {
    const kind = Object.hasOwn(ANALYSED, extensionOf(file.path)) ? ANALYSED[extensionOf(file.path) as keyof typeof ANALYSED] : undefined;
    return kind === undefined || file.text === undefined ? [] : [{ file, ...analyzeText(kind, file.text) }];
  });
}
