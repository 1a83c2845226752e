import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { ApiClient } from './client.ts';

/** What `svc login` keeps for one service: the key (plaintext, so the file is the user's alone) and who it is. */
export type StoredLogin = {
  baseUrl: string;
  key: string;
  keyId: string;
  prefix: string;
  role: string;
  account: { id: string; username: string };
  company: { cellId: string; name: string };
};

/**
 * The file: one login per service, keyed by its base URL, so logins to several services coexist.
 * Its top level is the current login (the last logged in to, used when no address is given), as
 * the file was before it kept several: older readers (the Node SDK, older CLIs) still find it.
 */
type StoredFile = StoredLogin & { logins?: Record<string, StoredLogin> };

export type StoredLogins = { current: StoredLogin | undefined; logins: Record<string, StoredLogin> };

/** The platform's config folder (XDG_CONFIG_HOME or ~/.config on Linux), file `svc/login.json`. */
export function storedLoginPath(): string {
  return join(envPaths('svc', { suffix: '' }).config, 'login.json');
}

/** A file written before logins were kept per service (no `logins`) is read as its one login. */
export async function readStoredLogins(): Promise<StoredLogins> {
  let file: StoredFile;
  try {
    file = JSON.parse(await readFile(storedLoginPath(), 'utf8')) as StoredFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { current: undefined, logins: {} };
    throw error;
  }
  const { logins, ...current } = file;
  return { current, logins: { ...logins, [current.baseUrl]: current } };
}

/**
 * Written to a temporary file created with mode 0600 (never readable by others, not even for an
 * instant) in a 0700 folder, then renamed over the old one, so a crash never leaves half a file.
 */
async function writeStoredLogins(current: StoredLogin, logins: Record<string, StoredLogin>): Promise<string> {
  const file = storedLoginPath();
  const dir = join(file, '..');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  const content: StoredFile = { ...current, logins };
  await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  // The mode given to open() is reduced by the umask; 0600 must hold whatever it is.
  await chmod(temporary, 0o600);
  await rename(temporary, file);
  return file;
}

/** Stores the login for its service (replacing that service's login only) and makes it the current one. */
export async function writeStoredLogin(login: StoredLogin): Promise<string> {
  const { logins } = await readStoredLogins();
  return writeStoredLogins(login, { ...logins, [login.baseUrl]: login });
}

/** Forgets the login for one service (another becomes current if it was); the file goes with the last. */
export async function removeStoredLogin(baseUrl: string): Promise<void> {
  const { current, logins } = await readStoredLogins();
  const rest = Object.fromEntries(Object.entries(logins).filter(([url]) => url !== baseUrl));
  const next = current && current.baseUrl !== baseUrl ? current : Object.values(rest).at(-1);
  if (next) await writeStoredLogins(next, rest);
  else await rm(storedLoginPath(), { force: true });
}

/** Revokes the stored login's key with itself, at the service that issued it. */
export async function revokeStoredKey(login: StoredLogin): Promise<void> {
  await new ApiClient(login.baseUrl, login.key).request('DELETE', `/api/v1/developer/keys/${encodeURIComponent(login.keyId)}`);
}
