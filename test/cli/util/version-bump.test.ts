import { describe, expect, it } from 'vitest';
import { CliError } from '../../../cli/util/errors.ts';
import { bumpVersion } from '../../../cli/util/version-bump.ts';

describe('bumpVersion (svc deploy --bump)', () => {
  it.each([
    ['1.2.3', 'patch', '1.2.4'],
    ['1.2.3', 'minor', '1.3.0'],
    ['1.2.3', 'major', '2.0.0'],
    ['1.2.3', 'prerelease', '1.2.4-0'],
    ['1.2.4-0', 'prerelease', '1.2.4-1'],
    ['1.2.4-beta', 'prerelease', '1.2.4-beta.0'],
    ['1.2.4-beta.1', 'prerelease', '1.2.4-beta.2'],
    ['1.2.4-rc.1.x', 'prerelease', '1.2.4-rc.2.x'],
    ['1.2.4-0', 'patch', '1.2.4'],
    ['1.3.0-1', 'minor', '1.3.0'],
    ['1.2.4-0', 'minor', '1.3.0'],
    ['2.0.0-rc.1', 'major', '2.0.0'],
    ['2.1.0-rc.1', 'major', '3.0.0'],
    ['0.9.9', 'minor', '0.10.0'],
  ] as const)('%s %s → %s', (from, bump, to) => {
    expect(bumpVersion(from, bump)).toBe(to);
  });

  it('refuses a version that is not semver, exit 2', () => {
    expect(() => bumpVersion('1.2', 'patch')).toThrow(CliError);
    expect(() => bumpVersion('v1.2.3', 'patch')).toThrow(/not a semantic version/);
  });
});
