import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every relative link of README.md and docs/ leads to a file or folder of the repository, so moving
// a document cannot silently leave a reader at a dead end. (Anchors are not checked.)

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
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'));
}

const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

describe('documentation links', () => {
  it('finds the links it checks', () => {
    expect(relativeLinks('[a](b.md) [c](https://x.test) [d](#e) `[f](g.md)` [h](../i.md#j)')).toEqual(['b.md', '../i.md#j']);
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((file) => [relative(ROOT, file), file]))('%s links only to files that exist', (_, file) => {
    const broken = relativeLinks(readFileSync(file, 'utf8')).filter((target) => {
      const path = decodeURIComponent(target.split('#')[0]!);
      return !existsSync(join(dirname(file), path));
    });
    expect(broken).toEqual([]);
  });

  it('keeps README.md within 150 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(150);
  });
});
