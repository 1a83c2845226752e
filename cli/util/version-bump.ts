import { VERSION_PATTERN } from '../../schemas/manifest/index.ts';
import { CliError, EXIT } from './errors.ts';

export const BUMPS = ['patch', 'minor', 'major', 'prerelease'] as const;
export type Bump = (typeof BUMPS)[number];

/**
 * The next version by semver's rules (as `npm version`): a prerelease of the version a bump
 * names is released as that version (`1.3.0-1` minor → `1.3.0`); `prerelease` counts up the last
 * numeric identifier, appending `.0` when there is none (`1.2.4-beta` → `1.2.4-beta.0`), and starts
 * the next patch at `-0` on a release (`1.2.3` → `1.2.4-0`).
 */
export function bumpVersion(version: string, bump: Bump): string {
  const match = VERSION_PATTERN.exec(version);
  if (!match) {
    throw new CliError(`--bump: the manifest's version "${version}" is not a semantic version such as 1.2.3.`, EXIT.usage, {
      code: 'manifest_invalid',
    });
  }
  const [major, minor, patch] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  const pre = match[4]?.slice(1);
  switch (bump) {
    case 'major':
      return pre !== undefined && minor === 0 && patch === 0 ? `${major}.0.0` : `${major + 1}.0.0`;
    case 'minor':
      return pre !== undefined && patch === 0 ? `${major}.${minor}.0` : `${major}.${minor + 1}.0`;
    case 'patch':
      return pre !== undefined ? `${major}.${minor}.${patch}` : `${major}.${minor}.${patch + 1}`;
    case 'prerelease':
      return pre === undefined ? `${major}.${minor}.${patch + 1}-0` : `${major}.${minor}.${patch}-${nextPrerelease(pre)}`;
  }
}

function nextPrerelease(pre: string): string {
  const parts = pre.split('.');
  const last = parts.findLastIndex((part) => /^(0|[1-9][0-9]*)$/.test(part));
  if (last === -1) return `${pre}.0`;
  parts[last] = String(Number(parts[last]) + 1);
  return parts.join('.');
}
