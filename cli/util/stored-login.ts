import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { ApiClient } from './client.ts';

/** What `svc login` keeps: the key (plaintext, so the file is the user's alone) and who it is. */
export type StoredLogin = {
  baseUrl: string;
  key: string;
  keyId: string;
  prefix: string;
  role: string;
  account: { id: string; username: string };
  company: { cellId: string; name: string };
};

/** The platform's config folder (XDG_CONFIG_HOME or ~/.config on Linux), file `svc/login.json`. */
export function storedLoginPath(): string {
  return join(envPaths('svc', { suffix: '' }).config, 'login.json');
}

export async function readStoredLogin(): Promise<StoredLogin | undefined> {
  try {
    return JSON.parse(await readFile(storedLoginPath(), 'utf8')) as StoredLogin;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Written to a temporary file created with mode 0600 (never readable by others, not even for an
 * instant) in a 0700 folder, then renamed over the old one, so a crash never leaves half a file.
 */
export async function writeStoredLogin(login: StoredLogin): Promise<string> {
  const file = storedLoginPath();
  const dir = join(file, '..');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  // The mode given to open() is reduced by the umask; 0600 must hold whatever it is.
  await chmod(temporary, 0o600);
  await rename(temporary, file);
  return file;
}

export async function removeStoredLogin(): Promise<void> {
  await rm(storedLoginPath(), { force: true });
}

/** Revokes the stored login's key with itself, at the service that issued it. */
export async function revokeStoredKey(login: StoredLogin): Promise<void> {
  await new ApiClient(login.baseUrl, login.key).request('DELETE', `/api/v1/developer/keys/${encodeURIComponent(login.keyId)}`);
}
