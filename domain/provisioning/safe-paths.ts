import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../errors.ts';
import { type CompanyRootPolicy, isInside, resolveCompanyRoot } from './company-root.ts';

// Everything the steps write stays under the company root. Names come from the fixed catalog,
// and each directory on the way is checked with lstat (a symlink is never followed) and, once
// it exists, by its real path, so neither a `..` nor a planted symlink leads outside the root.

function unsafe(message: string, where: string): DomainError {
  return new DomainError('conflict', message, { details: { path: where } });
}

/**
 * Checks the root against the policy (allowed root, refused directories, symlinks resolved),
 * creates what is missing of it one level at a time, and returns its real path (the base every
 * later check compares with). No recursive mkdir: the work is one mkdir and lstat per segment.
 */
export async function ensureRoot(policy: CompanyRootPolicy, rootPath: string): Promise<string> {
  const { existing, missing } = await resolveCompanyRoot(policy, rootPath);
  await ensureDirectory(existing, missing);
  return path.join(existing, ...missing);
}

/** Ensures `<root>/<segments…>` is a real directory inside the root; true when it was created. */
export async function ensureDirectory(root: string, segments: readonly string[]): Promise<boolean> {
  let current = root;
  let created = false;
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..' || segment.includes('/') || segment.includes('\0')) {
      throw unsafe(`Unsafe path segment ${JSON.stringify(segment)}.`, current);
    }
    current = path.join(current, segment);
    try {
      await fs.mkdir(current, { mode: 0o750 });
      created = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const stat = await fs.lstat(current);
    if (stat.isSymbolicLink()) throw unsafe(`${current} is a symbolic link; refusing to follow it out of the company root.`, current);
    if (!stat.isDirectory()) throw unsafe(`${current} exists and is not a directory.`, current);
  }
  const real = await fs.realpath(current);
  if (real !== current || !isInside(real, root)) {
    throw unsafe(`${current} resolves outside the company root.`, current);
  }
  return created;
}

/** The file's bytes, or undefined when absent; a symlink in its place is refused, never followed. */
export async function readFileNoFollow(file: string): Promise<Buffer | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw unsafe(`${file} is a symbolic link; refusing to follow it.`, file);
    throw err;
  }
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Replaces the file atomically: a fresh temporary file (O_EXCL, never through a link), then rename over it. */
export async function writeFileAtomic(file: string, content: string | Uint8Array): Promise<void> {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(temp, content, { flag: 'wx', mode: 0o640 });
  try {
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}
