import fs from 'node:fs/promises';
import path from 'node:path';

/** What to do with an entry (path relative to the root copied, `/`-separated). */
export type CopyRule = 'copy' | 'skip' | 'empty-folder';

/**
 * Copies a folder tree with its modes (not its owners). `rule` decides per entry: skip it, copy it,
 * or (folders) make it empty. With `live`, entries that vanish while the tree is read (a running
 * PostgreSQL drops temporary files and relations) are left out instead of failing the copy.
 * Returns the number of files copied.
 */
export async function copyTree(
  from: string,
  to: string,
  opts: { rule?: (relative: string, isFolder: boolean) => CopyRule; live?: boolean } = {},
): Promise<number> {
  const rule = opts.rule ?? (() => 'copy');
  const vanished = (err: unknown) => opts.live === true && (err as NodeJS.ErrnoException).code === 'ENOENT';
  let files = 0;
  const walk = async (relative: string): Promise<void> => {
    const source = path.join(from, relative);
    const target = path.join(to, relative);
    const { mode } = await fs.stat(source);
    await fs.mkdir(target, { recursive: true });
    await fs.chmod(target, mode & 0o7777);
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(source, { withFileTypes: true });
    } catch (err) {
      if (vanished(err)) return;
      throw err;
    }
    for (const entry of entries) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      const what = rule(child, entry.isDirectory());
      if (what === 'skip') continue;
      try {
        if (entry.isDirectory()) {
          if (what === 'empty-folder') {
            await fs.mkdir(path.join(to, child), { mode: (await fs.stat(path.join(from, child))).mode & 0o7777 });
          } else await walk(child);
        } else if (entry.isFile()) {
          await fs.copyFile(path.join(from, child), path.join(to, child));
          await fs.chmod(path.join(to, child), (await fs.stat(path.join(from, child))).mode & 0o7777);
          files++;
        } else if (entry.isSymbolicLink()) {
          await fs.symlink(await fs.readlink(path.join(from, child)), path.join(to, child));
        }
      } catch (err) {
        if (!vanished(err)) throw err;
      }
    }
  };
  await walk('');
  return files;
}

/** Gives a tree to a user (as root, for PostgreSQL's `postgres` user, which must own its data folder). */
export async function chownTree(root: string, uid: number, gid: number): Promise<void> {
  await fs.lchown(root, uid, gid);
  for (const entry of await fs.readdir(root, { withFileTypes: true, recursive: true })) {
    await fs.lchown(path.join(entry.parentPath, entry.name), uid, gid);
  }
}
