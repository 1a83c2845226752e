import { ApiClient } from './client.ts';
import { type CliError, loggedInElsewhere, notLoggedIn } from './errors.ts';
import { Output } from './output.ts';
import { readStoredLogins, type StoredLogin } from './stored-login.ts';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** Options every command takes (the program's). */
export type GlobalOptions = { baseUrl?: string; apiKey?: string; json?: boolean };

/** What a command runs with: where the service is, the credential if any, and where to write. */
export type Context = {
  out: Output;
  baseUrl: string;
  apiKey: string | undefined;
  /** The stored login for this address, if any. */
  stored: StoredLogin | undefined;
  env: NodeJS.ProcessEnv;
  /**
   * A client with the credential; without one it fails with exit 3 (naming the services logged in
   * to, if any), or with exit 1 when the service cannot be reached at all.
   */
  client(): ApiClient;
  /** A client without credential (login). */
  anonymous(): ApiClient;
};

/**
 * Spec "Authentication" 3 and the order: the address from --base-url, SVC_BASE_URL, the
 * stored login, the local default; the key from --api-key, SVC_API_KEY, the stored login.
 */
export async function createContext(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Promise<Context> {
  const { current, logins } = await readStoredLogins();
  const baseUrl = (options.baseUrl ?? env.SVC_BASE_URL ?? current?.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  // The stored key goes only to the service that issued it.
  const stored = logins[baseUrl];
  const apiKey = options.apiKey ?? (env.SVC_API_KEY || undefined) ?? stored?.key;
  // Without a key, an unreachable service is the thing to say, not the missing login.
  const missing: CliError | undefined = apiKey
    ? undefined
    : ((await new ApiClient(baseUrl, undefined).unreachable()) ??
      (Object.keys(logins).length > 0 ? loggedInElsewhere(Object.keys(logins), baseUrl) : notLoggedIn()));
  const out = new Output(options.json === true);
  return {
    out,
    baseUrl,
    apiKey,
    stored,
    env,
    client() {
      if (missing) throw missing;
      return new ApiClient(baseUrl, apiKey);
    },
    anonymous: () => new ApiClient(baseUrl, undefined),
  };
}
