import { ApiClient } from './client.ts';
import { notLoggedIn } from './errors.ts';
import { Output } from './output.ts';
import { readStoredLogin, type StoredLogin } from './stored-login.ts';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** Options every command takes (the program's). */
export type GlobalOptions = { baseUrl?: string; apiKey?: string; json?: boolean };

/** What a command runs with: where the service is, the credential if any, and where to write. */
export type Context = {
  out: Output;
  baseUrl: string;
  apiKey: string | undefined;
  stored: StoredLogin | undefined;
  env: NodeJS.ProcessEnv;
  /** A client with the credential; fails with exit 3 when there is none. */
  client(): ApiClient;
  /** A client without credential (login). */
  anonymous(): ApiClient;
};

/**
 * Spec "Authentication" 3 and the order: the address from --base-url, SVC_BASE_URL, the
 * stored login, the local default; the key from --api-key, SVC_API_KEY, the stored login.
 */
export async function createContext(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Promise<Context> {
  const stored = await readStoredLogin();
  const baseUrl = (options.baseUrl ?? env.SVC_BASE_URL ?? stored?.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  // The stored key goes only to the service that issued it.
  const apiKey = options.apiKey ?? (env.SVC_API_KEY || undefined) ?? (stored?.baseUrl === baseUrl ? stored.key : undefined);
  const out = new Output(options.json === true);
  return {
    out,
    baseUrl,
    apiKey,
    stored,
    env,
    client() {
      if (!apiKey) throw notLoggedIn();
      return new ApiClient(baseUrl, apiKey);
    },
    anonymous: () => new ApiClient(baseUrl, undefined),
  };
}
