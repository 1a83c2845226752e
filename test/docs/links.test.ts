import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every relative link of README.md and docs/ leads to a file or folder of the repository, and an
// anchor into a Markdown file to one of its headings, so moving a document or renaming a section
// cannot silently leave a reader at a dead end.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The targets of inline links `[text](target)` outside code blocks and code spans. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const headings = markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm);
  return new Set(
    [...headings].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}

/** Why a link from `file` to `target` leads nowhere, or undefined. */
function brokenBecause(file: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#');
  const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path));
  if (!existsSync(resolved)) return 'no such file';
  if (anchor === undefined || !resolved.endsWith('.md')) return undefined;
  return anchorsOf(readFileSync(resolved, 'utf8')).has(anchor) ? undefined : `no heading #${anchor}`;
}

const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

describe('documentation links', () => {
  it('finds the links it checks', () => {
    expect(relativeLinks('[a](b.md) [c](https://x.test) [d](#e) `[f](g.md)` [h](../i.md#j)')).toEqual(['b.md', '#e', '../i.md#j']);
    expect(anchorsOf('# Health, readiness and a `supervisor`\n```\n# not a heading\n```\n## Credentials: what ends what')).toEqual(
      new Set(['health-readiness-and-a-supervisor', 'credentials-what-ends-what']),
    );
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((file) => [relative(ROOT, file), file]))('%s links only to files that exist', (_, file) => {
    const broken = relativeLinks(readFileSync(file, 'utf8')).flatMap((target) => {
      const why = brokenBecause(file, target);
      return why ? [`${target}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('keeps README.md within 150 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(150);
  });
});
