import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { type BundleFileInput, sha256Hex, type ValidBundle, validateBundle } from '../../schemas/bundle/index.ts';
import { MANIFEST_FILE_NAMES } from '../../schemas/manifest/index.ts';
import { CliError, EXIT } from './errors.ts';

/** An app folder's manifest as written (validated with the bundle). */
export type FolderManifest = { file: string; manifest: unknown; slug: string | undefined; namespace: string | undefined };

export async function readManifest(dir: string): Promise<FolderManifest> {
  for (const name of MANIFEST_FILE_NAMES) {
    const file = join(dir, name);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    let manifest: unknown;
    try {
      manifest = JSON.parse(text);
    } catch (error) {
      throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`, EXIT.usage, { code: 'manifest_invalid' });
    }
    const named = (manifest ?? {}) as { slug?: unknown; namespace?: unknown };
    return {
      file,
      manifest,
      slug: typeof named.slug === 'string' ? named.slug : undefined,
      namespace: typeof named.namespace === 'string' ? named.namespace : undefined,
    };
  }
  throw new CliError(`No ${MANIFEST_FILE_NAMES.join(' or ')} in ${resolve(dir)}: run \`svc init\` or pass the app folder.`, EXIT.usage, {
    code: 'manifest_missing',
  });
}

export type FolderFile = { path: string; bytes: Buffer; sha256: string };

/**
 * Spec "Version bundle": every file of the folder except the manifest, hidden files (any part
 * of the path starting with a dot) and node_modules. Paths use `/`, sorted.
 */
export async function collectFiles(dir: string): Promise<FolderFile[]> {
  const root = resolve(dir);
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files: FolderFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = relative(root, join(entry.parentPath, entry.name)).split(sep).join('/');
    const parts = path.split('/');
    if (parts.some((part) => part.startsWith('.') || part === 'node_modules')) continue;
    if (parts.length === 1 && (MANIFEST_FILE_NAMES as readonly string[]).includes(path)) continue;
    const bytes = await readFile(join(root, path));
    files.push({ path, bytes, sha256: sha256Hex(bytes) });
  }
  return files.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The upload's form of a file: text as utf8 when it is valid UTF-8 without U+0000 (smaller on the
 * wire; the service refuses U+0000 in any string, and binaries such as .wasm can be valid UTF-8),
 * else base64.
 */
export function toBundleFile(file: FolderFile): BundleFileInput {
  const base64 = { path: file.path, encoding: 'base64', content: file.bytes.toString('base64') } as const;
  if (file.bytes.includes(0)) return base64;
  try {
    return { path: file.path, encoding: 'utf8', content: UTF8.decode(file.bytes) };
  } catch {
    return base64;
  }
}

/**
 * The service's own validation (schemas/bundle, the same module), run before anything is sent:
 * an invalid bundle exits 2 with every problem, as the server would answer it.
 */
export function validateLocally(manifest: unknown, files: readonly FolderFile[]): ValidBundle {
  const result = validateBundle({ manifest, files: files.map(toBundleFile) });
  if (result.ok) return result;
  throw new CliError(`The bundle has ${result.problems.length} problem(s); nothing was sent.`, EXIT.usage, {
    code: 'bundle_invalid',
    details: { problems: result.problems, warnings: result.warnings },
  });
}
