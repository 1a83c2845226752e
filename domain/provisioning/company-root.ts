import fs from 'node:fs/promises';
import path from 'node:path';
import { problem } from '../../schemas/problems.ts';
import { DomainError } from '../errors.ts';

// Where a company's rootPath may lie (spec F: "filesystem path of the company root on the
// server"). The steps write as the worker's user, possibly root, so a path is checked by where it
// really leads: the real path of its deepest existing ancestor (symlinks resolved), then the
// segments still to be made. That walk is bounded by the path's segments and never creates
// anything, so no path, not even one under /proc, can make it spin.

/** Kernel pseudo file systems: never a company root, whatever SVC_COMPANY_ROOT says. */
export const SYSTEM_DIRECTORIES = ['/proc', '/sys', '/dev'] as const;

/** Built once by the composition root from SVC_COMPANY_ROOT and the service's data directories. */
export interface CompanyRootPolicy {
  /** SVC_COMPANY_ROOT (absolute): every rootPath lies under it. */
  allowed: string;
  /** Never a rootPath nor under one, even when `allowed` contains them (the system and data directories). */
  refused: readonly string[];
}

/** `p` is `dir` or lies under it (both absolute and normalized). */
export function isInside(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`);
}

/** Where `p` really leads: the real path of its deepest existing ancestor, and the segments below it not made yet. */
export interface ResolvedPath {
  existing: string;
  missing: string[];
}

function refusal(message: string): DomainError {
  return new DomainError('invalid_payload', message, { details: { problems: [problem('rootPath', 'path_not_allowed', message)] } });
}

/**
 * Resolves an absolute, normalized path without creating anything; a file, a symlink loop or a
 * folder the service may not search on the way is refused.
 */
export async function resolvePath(p: string): Promise<ResolvedPath> {
  const missing: string[] = [];
  for (let current = p; ; current = path.dirname(current)) {
    try {
      return { existing: await fs.realpath(current), missing: missing.reverse() };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && current !== path.dirname(current)) missing.push(path.basename(current));
      else if (code === 'ENOTDIR') throw refusal(`${p} passes through a file.`);
      else if (code === 'ELOOP') throw refusal(`${p} passes through a symbolic link loop.`);
      else throw refusal(`${p} cannot be resolved (${code ?? 'unknown error'}).`);
    }
  }
}

const joined = ({ existing, missing }: ResolvedPath) => path.join(existing, ...missing);

/**
 * Where `rootPath` really leads, once checked: under the allowed root and under none of the
 * refused directories, after resolving symlinks. Throws invalid_payload (problem `path_not_allowed`
 * at `rootPath`) otherwise. Creates nothing.
 */
export async function resolveCompanyRoot(policy: CompanyRootPolicy, rootPath: string): Promise<ResolvedPath> {
  if (!path.isAbsolute(rootPath) || path.normalize(rootPath) !== rootPath) throw refusal('The root path must be absolute and normalized.');
  // As written first: a path named under /proc is refused without resolving anything there.
  const named = policy.refused.find((dir) => isInside(rootPath, dir));
  if (named) throw refusal(`${rootPath} lies in ${named}, where the service never writes company folders.`);
  const target = await resolvePath(rootPath);
  const real = joined(target);
  const allowed = joined(await resolvePath(policy.allowed));
  if (!isInside(real, allowed)) {
    throw refusal(
      real === rootPath
        ? `${rootPath} is not under the company root ${allowed} (SVC_COMPANY_ROOT).`
        : `${rootPath} leads to ${real}, which is not under the company root ${allowed} (SVC_COMPANY_ROOT).`,
    );
  }
  for (const dir of policy.refused) {
    // One the service cannot resolve is compared as written: it must not refuse every rootPath.
    const refused = await resolvePath(dir).then(joined, () => dir);
    if (isInside(real, refused)) throw refusal(`${rootPath} lies in ${refused}, where the service never writes company folders.`);
  }
  return target;
}
