import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { MANIFEST_FILE_NAME, MANIFEST_SCHEMA_PATH, SLUG_PATTERN } from '../../../schemas/manifest/index.ts';
import { readManifest } from '../../util/app-folder.ts';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { CliError, EXIT } from '../../util/errors.ts';
import { appTemplate } from './template.ts';

type InitOptions = { slug?: string; title?: string };

export function registerInit(program: Command): void {
  program
    .command('init')
    .description(`Create an app folder: ${MANIFEST_FILE_NAME} (with $schema), index.html and app.js using this service’s SDK and ui.css`)
    .argument('[dir]', 'the folder (created when missing)', '.')
    .option('--slug <slug>', 'the app’s slug (default: from the folder name)')
    .option('--title <title>', 'the app’s title (default: from the slug)')
    .action(withContext(init));
}

/** A folder name as a slug: lowercase, runs of other characters as one hyphen. */
function slugFrom(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '')
    .slice(0, 48);
}

async function init(ctx: Context, dir: string, options: InitOptions): Promise<void> {
  ctx.client();
  const folder = resolve(dir);
  const existing = await readManifest(folder).catch(() => undefined);
  if (existing)
    throw new CliError(`${existing.file} already exists: this folder is an app already.`, EXIT.usage, { code: 'already_initialized' });
  const slug = options.slug ?? slugFrom(basename(folder));
  if (!SLUG_PATTERN.test(slug)) {
    throw new CliError(
      `"${slug}" is not a slug (a lowercase letter, then 1 to 47 lowercase letters, digits or hyphens): pass --slug.`,
      EXIT.usage,
      {
        code: 'invalid_slug',
      },
    );
  }
  const title = options.title ?? slug.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase());
  const manifest = {
    $schema: `${ctx.baseUrl}${MANIFEST_SCHEMA_PATH}`,
    manifestVersion: 1,
    slug,
    version: '0.1.0',
    title,
    sdk: ['semantic', 'ui'],
  };
  await mkdir(folder, { recursive: true });
  const manifestFile = join(folder, MANIFEST_FILE_NAME);
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
  const written = [manifestFile];
  // A file the folder holds already is kept as it is.
  for (const [name, content] of Object.entries(appTemplate(ctx.baseUrl, title))) {
    const file = join(folder, name);
    const created = await writeFile(file, content, { flag: 'wx' }).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
        return false;
      },
    );
    if (created) written.push(file);
  }
  ctx.out.result({ dir: folder, slug, files: written }, () => [
    `${ctx.out.style('green', '✓')} Created ${slug} in ${folder}: ${written.map((f) => basename(f)).join(', ')}.`,
    `Next: ${dir === '.' ? '' : `cd ${dir} && `}svc deploy`,
  ]);
}
