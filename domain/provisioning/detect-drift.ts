import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AGENTS_FOLDER, EXECUTIVE_ROLES } from './catalog.ts';
import { type CompanyRootPolicy, resolveCompanyRoot } from './company-root.ts';
import { readFileNoFollow } from './safe-paths.ts';

// Drift: what is on disk against what the steps recorded. Missing folders, profile folders and
// description files; descriptions whose content hash differs from the recorded one (edited by
// hand); entries in the root or in agents/ that no step made. Reads only, without following a
// symlink, and lists at most MAX_UNEXPECTED entries per folder, so the cost stays bounded.

const MAX_UNEXPECTED = 50;

export interface DriftEntry {
  kind: 'missing' | 'changed' | 'unexpected';
  target: 'root' | 'folder' | 'profile' | 'description' | 'entry' | 'instance';
  name: string;
  /** Empty for an instance. */
  path: string;
  /** How an instance differs from the record. */
  detail?: string;
}

export interface Drift {
  /** False when the root could not be looked at (refused by the root policy); `entries` is then empty. */
  checked: boolean;
  count: number;
  entries: DriftEntry[];
}

const isDirectory = (p: string) =>
  fs.lstat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );

/** Up to MAX_UNEXPECTED names in `dir` that are not in `expected`. */
async function unexpectedIn(dir: string, expected: ReadonlySet<string>): Promise<string[]> {
  const found: string[] = [];
  const handle = await fs.opendir(dir).catch(() => undefined);
  if (!handle) return found;
  for await (const entry of handle) {
    if (!expected.has(entry.name)) found.push(entry.name);
    if (found.length >= MAX_UNEXPECTED) break;
  }
  return found.sort();
}

export async function detectDrift(
  policy: CompanyRootPolicy,
  rootPath: string,
  folders: readonly { name: string; path: string }[],
  profiles: readonly { name: string; profile_path: string; description_path: string; description_sha256: string }[],
): Promise<Drift> {
  const resolved = await resolveCompanyRoot(policy, rootPath).catch(() => undefined);
  if (!resolved) return { checked: false, count: 0, entries: [] };
  const root = path.join(resolved.existing, ...resolved.missing);
  const entries: DriftEntry[] = [];
  if (resolved.missing.length || !(await isDirectory(root))) {
    if (folders.length || profiles.length) entries.push({ kind: 'missing', target: 'root', name: path.basename(root), path: root });
    return { checked: true, count: entries.length, entries };
  }
  for (const f of folders)
    if (!(await isDirectory(f.path))) entries.push({ kind: 'missing', target: 'folder', name: f.name, path: f.path });
  for (const p of profiles) {
    if (!(await isDirectory(p.profile_path))) {
      entries.push({ kind: 'missing', target: 'profile', name: p.name, path: p.profile_path });
      continue;
    }
    const text = await readFileNoFollow(p.description_path).catch(() => undefined);
    if (!text) entries.push({ kind: 'missing', target: 'description', name: p.name, path: p.description_path });
    else if (createHash('sha256').update(text).digest('hex') !== p.description_sha256) {
      entries.push({ kind: 'changed', target: 'description', name: p.name, path: p.description_path });
    }
  }
  const inRoot = new Set<string>([AGENTS_FOLDER, ...EXECUTIVE_ROLES.map((r) => r.folder)]);
  for (const name of await unexpectedIn(root, inRoot))
    entries.push({ kind: 'unexpected', target: 'entry', name, path: path.join(root, name) });
  const agents = path.join(root, AGENTS_FOLDER);
  for (const name of await unexpectedIn(agents, new Set(profiles.map((p) => path.basename(p.profile_path))))) {
    entries.push({ kind: 'unexpected', target: 'entry', name, path: path.join(agents, name) });
  }
  return { checked: true, count: entries.length, entries };
}
