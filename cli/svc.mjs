#!/usr/bin/env node
// The `svc` bin: runs cli/main.ts on Node 24 (type stripping), the project's pinned `node`
// devDependency when the `node` on PATH is older (npx puts node_modules/.bin first, so usually
// it is that one already).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const major = Number(process.versions.node.split('.')[0]);
if (major >= 24) {
  await import('./main.ts');
} else {
  let node;
  try {
    node = createRequire(import.meta.url).resolve('node/bin/node');
  } catch {
    process.stderr.write(`svc needs Node 24 or later (this is ${process.version}); run npm install in the project first.\n`);
    process.exit(1);
  }
  const { status, signal } = spawnSync(node, [new URL('./main.ts', import.meta.url).pathname, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(signal ? 1 : (status ?? 1));
}
