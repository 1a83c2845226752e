import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { AppAddress } from './app-address.ts';

/**
 * What an app folder remembers of its own deploys, in `.svc/state.json` (a hidden folder, so
 * never part of a bundle): the last version uploaded from here, so that `svc test` promotes it
 * and not a newer upload of the same app from another folder or person.
 */
const FolderState = z.object({
  lastUpload: z.object({ baseUrl: z.string(), namespace: z.string(), slug: z.string(), version: z.string(), build: z.number().int() }),
});
export type LastUpload = z.infer<typeof FolderState>['lastUpload'];

const stateFile = (dir: string) => join(dir, '.svc', 'state.json');

export async function rememberUpload(dir: string, lastUpload: LastUpload): Promise<void> {
  await mkdir(join(dir, '.svc'), { recursive: true });
  // Written whole then renamed, so an interrupted deploy never leaves half a file.
  const partial = `${stateFile(dir)}.${process.pid}`;
  await writeFile(partial, `${JSON.stringify({ lastUpload }, null, 2)}\n`);
  await rename(partial, stateFile(dir));
}

/** The folder's last upload of this app to this service; none when it never uploaded it (or the file is unreadable). */
export async function lastUpload(dir: string, baseUrl: string, app: AppAddress): Promise<LastUpload | undefined> {
  let text: string;
  try {
    text = await readFile(stateFile(dir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const state = FolderState.safeParse(parsed);
  if (!state.success) return undefined;
  const last = state.data.lastUpload;
  return last.baseUrl === baseUrl && last.namespace === app.namespace && last.slug === app.slug ? last : undefined;
}
