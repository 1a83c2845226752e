import { readFile } from 'node:fs/promises';
import semver from 'semver';
import { beforeAll, describe, expect, it } from 'vitest';

// `npm install` of the project prints errors only (.npmrc): npm compares `engines` with the Node
// that runs npm, which is not the Node anything here runs on. What npm's warnings are for is
// checked here instead, on the lock file: engines against the pinned `node` devDependency, and
// install scripts against package.json's allowScripts (npm runs an undecided one with a notice).

type LockedPackage = { version?: string; optional?: boolean; hasInstallScript?: boolean; engines?: { node?: string } };

let locked: [string, LockedPackage][];
beforeAll(async () => {
  const lock = JSON.parse(await readFile('package-lock.json', 'utf8')) as { packages: Record<string, LockedPackage> };
  // The project itself ("") is not installed; optional packages are skipped where they do not fit.
  locked = Object.entries(lock.packages).filter(([where, p]) => where !== '' && !p.optional);
});

describe('npm install of the project', () => {
  it('locks only packages whose engines accept the pinned Node', async () => {
    const project = JSON.parse(await readFile('package.json', 'utf8')) as { engines: { node: string } };
    const pinned = locked.find(([where]) => where === 'node_modules/node')![1].version!;
    const refusing = [['package.json', { engines: project.engines }] as const, ...locked]
      .filter(([, p]) => p.engines?.node && !semver.satisfies(pinned, p.engines.node, { includePrerelease: true }))
      .map(([where, p]) => `${where} wants Node ${p.engines!.node}`);
    expect(refusing, `Node ${pinned}`).toEqual([]);
  });

  it('decides every install script in allowScripts', async () => {
    const project = JSON.parse(await readFile('package.json', 'utf8')) as { allowScripts: Record<string, boolean> };
    const undecided = locked
      .filter(([, p]) => p.hasInstallScript)
      .map(([where]) => where.split('node_modules/').pop()!)
      .filter((name) => !(name in project.allowScripts));
    expect(undecided).toEqual([]);
  });
});
