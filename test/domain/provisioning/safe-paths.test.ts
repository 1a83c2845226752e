import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureDirectory, ensureRoot, readFileNoFollow, writeFileAtomic } from '../../../domain/provisioning/safe-paths.ts';
import { companyRootAt } from '../../support/provisioning.ts';

// Nothing the steps write may land outside the company root: not through `..`, not through a
// symlink planted at any level, not through a symlink in place of a file.

let base: string;
let root: string;
let outside: string;
beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-safe-paths-'));
  root = await ensureRoot(companyRootAt(base), path.join(base, 'root'));
  outside = path.join(base, 'outside');
  await fs.mkdir(outside);
});
afterEach(() => fs.rm(base, { recursive: true, force: true }));

describe('safe paths under the company root', () => {
  it('creates nested directories once, then reuses them', async () => {
    expect(await ensureDirectory(root, ['agents', 'north-ceo', 'logs'])).toBe(true);
    expect(await ensureDirectory(root, ['agents', 'north-ceo', 'logs'])).toBe(false);
    expect((await fs.stat(path.join(root, 'agents', 'north-ceo', 'logs'))).isDirectory()).toBe(true);
  });

  it('refuses a symlink at any level and writes nothing outside', async () => {
    await fs.symlink(outside, path.join(root, 'agents'));
    await expect(ensureDirectory(root, ['agents', 'north-ceo'])).rejects.toThrow(/symbolic link/);
    await fs.rm(path.join(root, 'agents'));
    await fs.mkdir(path.join(root, 'agents'));
    await fs.symlink(outside, path.join(root, 'agents', 'north-ceo'));
    await expect(ensureDirectory(root, ['agents', 'north-ceo', 'logs'])).rejects.toThrow(/symbolic link/);
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it('refuses unsafe segments and a file where a directory belongs', async () => {
    await expect(ensureDirectory(root, ['..'])).rejects.toThrow(/Unsafe path segment/);
    await expect(ensureDirectory(root, ['a/b'])).rejects.toThrow(/Unsafe path segment/);
    await fs.writeFile(path.join(root, '01_executive'), 'x');
    await expect(ensureDirectory(root, ['01_executive'])).rejects.toThrow(/not a directory/);
  });

  it('never reads or writes through a symlinked file', async () => {
    const target = path.join(outside, 'secret.txt');
    await fs.writeFile(target, 'outside');
    const file = path.join(root, 'description.md');
    await fs.symlink(target, file);
    await expect(readFileNoFollow(file)).rejects.toThrow(/symbolic link/);
    await writeFileAtomic(file, 'inside');
    expect(await fs.readFile(target, 'utf8')).toBe('outside');
    expect((await fs.lstat(file)).isSymbolicLink()).toBe(false);
    expect(await readFileNoFollow(file)).toEqual(Buffer.from('inside'));
    expect(await readFileNoFollow(path.join(root, 'absent.md'))).toBeUndefined();
  });

  it('accepts only an absolute, normalized root', async () => {
    await expect(ensureRoot(companyRootAt(base), 'relative/root')).rejects.toThrow(/absolute/);
    await expect(ensureRoot(companyRootAt(base), `${base}/x/../y`)).rejects.toThrow(/absolute/);
  });

  it('makes a missing root and the allowed root above it one level at a time, and returns its real path', async () => {
    const allowed = path.join(base, 'companies');
    const via = path.join(base, 'via');
    await fs.symlink(base, via);
    // A root named through a symlink that stays inside the allowed root is fine; its real path is returned.
    expect(await ensureRoot(companyRootAt(allowed), path.join(via, 'companies', 'north', 'main'))).toBe(
      path.join(allowed, 'north', 'main'),
    );
    expect((await fs.lstat(path.join(allowed, 'north', 'main'))).isDirectory()).toBe(true);
  });

  it('/proc/self rootPath refused before anything is made, even with SVC_COMPANY_ROOT=/ (a recursive mkdir there spun a core forever)', async () => {
    for (const rootPath of ['/proc/self/fd/svc-company', '/proc/self/task/1/svc', '/sys/kernel/svc', '/dev/shm/svc-company']) {
      await expect(ensureRoot(companyRootAt('/'), rootPath)).rejects.toMatchObject({
        code: 'invalid_payload',
        details: { problems: [{ path: 'rootPath', code: 'path_not_allowed' }] },
      });
    }
    await expect(fs.stat('/dev/shm/svc-company')).rejects.toThrow();
  });

  it('refuses a root that escapes the allowed root through a symlink, and makes nothing outside', async () => {
    const allowed = path.join(base, 'companies');
    await fs.mkdir(allowed);
    await fs.symlink(outside, path.join(allowed, 'escape'));
    await expect(ensureRoot(companyRootAt(allowed), path.join(allowed, 'escape', 'north'))).rejects.toThrow(
      new RegExp(`leads to ${outside}/north, which is not under the company root`),
    );
    expect(await fs.readdir(outside)).toEqual([]);
  });
});
