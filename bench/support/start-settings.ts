// The memory settings `npm start` runs the service with, read from package.json's start script
// (`MALLOC_ARENA_MAX=2 … NODE_OPTIONS="<V8 flags> $NODE_OPTIONS" node main.ts`): the benches serve
// the service with them, and test/bench/start-settings.test.ts checks that the image and the
// other scripts carry the same.
import { readFileSync } from 'node:fs';

export interface StartSettings {
  /** The V8 flags of the script's NODE_OPTIONS (the caller's own NODE_OPTIONS come after them, so they win). */
  nodeFlags: string[];
  /** The other variables the script sets before `node` (the allocator's settings). */
  env: Record<string, string>;
}

/** The settings of one npm script of that form. */
export function parseStartScript(script: string): StartSettings {
  const before = script.slice(0, script.search(/(^|\s)node\s/));
  const env: Record<string, string> = {};
  let nodeFlags: string[] = [];
  for (const [, name, quoted, plain] of before.matchAll(/(\w+)=(?:"([^"]*)"|(\S+))/g)) {
    const value = quoted ?? plain!;
    if (name === 'NODE_OPTIONS') nodeFlags = value.split(/\s+/).filter((flag) => flag.startsWith('--'));
    else env[name!] = value;
  }
  return { nodeFlags, env };
}

const scripts = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> })
  .scripts;

/** `npm start`'s settings. */
export const START_SETTINGS: StartSettings = parseStartScript(scripts.start!);
