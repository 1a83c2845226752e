import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { errorTable } from '../../api/http/openapi.ts';
import { EnvSchema } from '../../config.ts';

// The parts of docs/ that are printed from code, each between a pair of markers so the hand-written
// text around it survives. `npm run docs` writes them; test/docs/generated.test.ts fails when a
// committed file differs from what this produces.

const ROOT = new URL('../../', import.meta.url);

export interface GeneratedSection {
  /** Path from the repository root. */
  file: string;
  /** The marker name: `<!-- generated:NAME -->` … `<!-- /generated:NAME -->`. */
  name: string;
  render: () => string;
}

export const SECTIONS: readonly GeneratedSection[] = [
  { file: 'docs/operators/configuration.md', name: 'configuration', render: configurationTable },
  { file: 'docs/api/errors.md', name: 'errors', render: errorTable },
];

/** The default a schema applies when its variable is unset, looking through preprocess, pipes and optional. */
function defaultOf(schema: z.ZodType): { value: unknown } | undefined {
  const def = schema.def as { type: string; defaultValue?: unknown; in?: z.ZodType; out?: z.ZodType; innerType?: z.ZodType };
  if (def.type === 'default') return { value: def.defaultValue };
  if (def.type === 'pipe') return (def.in && defaultOf(def.in)) ?? (def.out && defaultOf(def.out));
  if (def.innerType) return defaultOf(def.innerType);
  return undefined;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** Every environment variable config.ts reads: its default and what it does. */
export function configurationTable(): string {
  const rows = Object.entries(EnvSchema.shape).map(([name, schema]) => {
    const meta = z.globalRegistry.get(schema) as { description?: string; shownDefault?: string } | undefined;
    if (!meta?.description) throw new Error(`config.ts: ${name} has no .describe() text`);
    const applied = defaultOf(schema);
    const shown = meta.shownDefault ?? (applied ? `\`${String(applied.value)}\`` : 'unset');
    return `| \`${name}\` | ${cell(shown)} | ${cell(meta.description)} |`;
  });
  return ['| Variable | Default | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The file's text with each of its sections replaced by what the code says now. */
export function regenerate(file: string, text: string): string {
  let out = text;
  for (const section of SECTIONS.filter((s) => s.file === file)) {
    const open = `<!-- generated:${section.name} (npm run docs writes this part) -->`;
    const close = `<!-- /generated:${section.name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`${file}: the markers ${open} … ${close} are missing`);
    out = `${out.slice(0, start + open.length)}\n${section.render()}\n${out.slice(end)}`;
  }
  return out;
}

/** Every file with generated sections: its path, its committed text and the text it should have. */
export function generatedFiles(): { file: string; committed: string; expected: string }[] {
  return [...new Set(SECTIONS.map((s) => s.file))].map((file) => {
    const committed = readFileSync(new URL(file, ROOT), 'utf8');
    return { file, committed, expected: regenerate(file, committed) };
  });
}

export const rootPath = (file: string) => new URL(file, ROOT);
