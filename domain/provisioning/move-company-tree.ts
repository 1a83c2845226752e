import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { AGENTS_FOLDER, EXECUTIVE_ROLES, profileName } from './catalog.ts';
import { type CompanyRootPolicy, resolveCompanyRoot } from './company-root.ts';
import { clearPendingMove, loadProvisioning } from './repository.ts';
import { type RunContext, runStep } from './run-step.ts';
import { ensureDirectory, ensureRoot } from './safe-paths.ts';

// Step move: what initialize with `apply: "move"` left to do on disk. Each move is one rename
// (atomic on one file system), and what is already where it belongs counts as done, so a retry,
// a second run or two runs at once move the tree exactly once.

const lstatOrUndefined = (p: string): Promise<Stats | undefined> =>
  fs.lstat(p).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });

function refuse(message: string, where: string): DomainError {
  return new DomainError('conflict', message, { details: { path: where } });
}

/** Renames `from` to `to` (a real directory, never a symlink); `moved`, or `reused` when it is already at `to`, or undefined when neither exists. */
async function moveDirectory(from: string, to: string): Promise<'moved' | 'reused' | undefined> {
  const [source, target] = await Promise.all([lstatOrUndefined(from), lstatOrUndefined(to)]);
  if (!source) return target ? 'reused' : undefined;
  if (!source.isDirectory()) throw refuse(`${from} is not a directory; refusing to move it.`, from);
  if (target) {
    const empty = target.isDirectory() && (await fs.readdir(to)).length === 0;
    if (!empty) throw refuse(`Both ${from} and ${to} exist; move or remove one of them by hand, then run again.`, to);
  }
  try {
    // Over an empty directory rename replaces it; across file systems it fails (EXDEV) with nothing moved.
    await fs.rename(from, to);
    return 'moved';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Another run moved it a moment ago.
    if (code === 'ENOENT' && (await lstatOrUndefined(to))) return 'reused';
    if (code === 'EXDEV') throw refuse(`${from} and ${to} are on different file systems; move the tree by hand, then run again.`, to);
    throw err;
  }
}

/** Moves the root and renames the profile folders as initialize with `apply: "move"` recorded; no step at all when nothing is pending. */
export async function applyPendingMove(
  { db, companyRoot }: { db: Db; companyRoot: CompanyRootPolicy },
  run: RunContext,
  cellId: string,
): Promise<{ moved: boolean }> {
  const { pending_move: move } = await loadProvisioning(db, cellId);
  if (!move) return { moved: false };
  return runStep(db, run, 'move', async (changes) => {
    if (move.fromRoot !== move.toRoot) {
      const source = await resolveCompanyRoot(companyRoot, move.fromRoot);
      const target = await resolveCompanyRoot(companyRoot, move.toRoot);
      // The new root's parent is made (checked segment by segment); the root itself arrives by the rename.
      if (target.missing.length > 1) await ensureDirectory(target.existing, target.missing.slice(0, -1));
      const to = path.join(target.existing, ...target.missing);
      const outcome = source.missing.length
        ? (await lstatOrUndefined(to))
          ? 'reused'
          : undefined
        : await moveDirectory(source.existing, to);
      if (outcome) changes.push({ item: `root ${move.fromRoot} -> ${move.toRoot}`, outcome });
    }
    if (move.fromKey !== move.toKey) {
      const root = await ensureRoot(companyRoot, move.toRoot);
      await ensureDirectory(root, [AGENTS_FOLDER]);
      for (const { role } of EXECUTIVE_ROLES) {
        const from = profileName(move.fromKey, role);
        const to = profileName(move.toKey, role);
        const outcome = await moveDirectory(path.join(root, AGENTS_FOLDER, from), path.join(root, AGENTS_FOLDER, to));
        if (outcome) changes.push({ item: `profile ${from} -> ${to}`, outcome });
      }
    }
    await clearPendingMove(db, cellId, move);
    return { moved: true };
  });
}
