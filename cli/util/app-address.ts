import type { Me } from '../commands/whoami/index.ts';
import { readManifest } from './app-folder.ts';
import type { ApiClient } from './client.ts';
import { CliError, EXIT } from './errors.ts';

export type AppAddress = { namespace: string; slug: string };

/** `--app` and `--dir`, the options of every command about one app. */
export type AppOptions = { app?: string; dir?: string };

export const APP_OPTION = ['--app <[namespace/]slug>', 'the app (default: the manifest in --dir or the current folder)'] as const;
export const DIR_OPTION = ['--dir <folder>', 'the app folder whose manifest names the app', '.'] as const;

/** The key's company namespace, the default for an address that names none (spec "App identity"). */
export async function defaultNamespace(client: ApiClient): Promise<string> {
  return (await client.request<Me>('GET', '/api/v1/developer/me')).company.cellId;
}

/** The app an `--app` names, or the manifest of the folder; the namespace defaults to the key's company. */
export async function resolveApp(client: ApiClient, options: AppOptions): Promise<AppAddress> {
  let named: { namespace: string | undefined; slug: string | undefined };
  if (options.app) {
    const parts = options.app.split('/');
    if (parts.length > 2 || parts.some((p) => p === '')) {
      throw new CliError(`--app ${options.app}: write <slug> or <namespace>/<slug>`, EXIT.usage, { code: 'invalid_app' });
    }
    named = parts.length === 2 ? { namespace: parts[0], slug: parts[1] } : { namespace: undefined, slug: parts[0] };
  } else {
    named = await readManifest(options.dir ?? '.');
  }
  if (!named.slug) throw new CliError('The manifest names no slug.', EXIT.usage, { code: 'manifest_invalid' });
  return { namespace: named.namespace ?? (await defaultNamespace(client)), slug: named.slug };
}

export const appPath = (app: AppAddress) => `/api/v1/developer/apps/${encodeURIComponent(app.namespace)}/${encodeURIComponent(app.slug)}`;
