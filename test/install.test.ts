import { readFile } from 'node:fs/promises';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

// `npm install` of the project prints errors only (.npmrc): npm compares `engines` with the Node
// that runs npm, which is not the Node anything here runs on. The check that matters is made
// here instead, against the pinned `node` devDependency.

type LockedPackage = { version?: string; optional?: boolean; engines?: { node?: string } };

describe('npm install of the project', () => {
  it('locks only packages whose engines accept the pinned Node', async () => {
    const lock = JSON.parse(await readFile('package-lock.json', 'utf8')) as { packages: Record<string, LockedPackage> };
    const pinned = lock.packages['node_modules/node']!.version!;
    expect(semver.valid(pinned), 'the locked version of the node devDependency').toBe(pinned);
    // Optional packages that do not fit are skipped by npm, as on another platform.
    const refusing = Object.entries(lock.packages)
      .filter(([, p]) => !p.optional && p.engines?.node && !semver.satisfies(pinned, p.engines.node, { includePrerelease: true }))
      .map(([where, p]) => `${where || 'package.json'} wants Node ${p.engines!.node}`);
    expect(refusing, `Node ${pinned}`).toEqual([]);
  });
});
