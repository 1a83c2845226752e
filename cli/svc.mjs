#!/usr/bin/env node
// The `svc` bin, of the checkout and of the installed package (@svc/cli). The package has no
// sources: it runs dist/svc.js, the build for Node 20.19 and later (cli/build.ts). A checkout
// runs cli/main.ts on Node 24 (type stripping), never a build that may be older than its sources:
// the project's pinned `node` devDependency when the `node` on PATH is older (npx puts
// node_modules/.bin first, so usually it is that one already).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const sources = new URL('./main.ts', import.meta.url);
const major = Number(process.versions.node.split('.')[0]);
if (!existsSync(sources)) {
  await import('./dist/svc.js');
} else if (major >= 24) {
  await import('./main.ts');
} else {
  let node;
  try {
    node = createRequire(import.meta.url).resolve('node/bin/node');
  } catch {
    process.stderr.write(`svc needs Node 24 or later (this is ${process.version}); run npm install in the project first.\n`);
    process.exit(1);
  }
  const { status, signal } = spawnSync(node, [sources.pathname, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(signal ? 1 : (status ?? 1));
}
