import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseStartScript, START_SETTINGS } from '../../bench/support/start-settings.ts';

// The memory budget's Node flags and allocator settings (docs/operators/install.md#memory) are
// written in package.json's start script, the api and worker scripts, the image and the systemd
// unit of the install page; the benches read them from the start script. One left behind would
// run that way of starting with another budget than the one measured.
describe('npm start’s memory settings', () => {
  it('reads the V8 flags from the script’s NODE_OPTIONS, ahead of the caller’s own, and the variables before node', () => {
    expect(
      parseStartScript(
        'MALLOC_ARENA_MAX=2 X_=131072 NODE_OPTIONS="--max-semi-space-size=8 --max-old-space-size=2047 $NODE_OPTIONS" node main.ts api',
      ),
    ).toEqual({ nodeFlags: ['--max-semi-space-size=8', '--max-old-space-size=2047'], env: { MALLOC_ARENA_MAX: '2', X_: '131072' } });
    expect(START_SETTINGS.nodeFlags.length).toBeGreaterThan(0);
    expect(START_SETTINGS.env.MALLOC_ARENA_MAX).toBeDefined();
  });

  it('are the same for npm run api and npm run worker', async () => {
    const { scripts } = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toMatch(/NODE_OPTIONS="[^"]*\$NODE_OPTIONS"/);
    for (const role of ['api', 'worker']) {
      expect(scripts[role]).toBe(`${scripts.start} ${role}`);
    }
  });

  it('are the image’s environment', async () => {
    const dockerfile = await readFile('infra/Dockerfile', 'utf8');
    expect(dockerfile).toContain(`ENV NODE_OPTIONS="${START_SETTINGS.nodeFlags.join(' ')}"`);
    const env = Object.entries(START_SETTINGS.env)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ');
    expect(dockerfile).toContain(`ENV ${env}`);
  });

  it('are the systemd unit’s of the install page', async () => {
    const install = await readFile('docs/operators/install.md', 'utf8');
    const env = Object.entries(START_SETTINGS.env)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ');
    expect(install).toContain(`Environment=${env} "NODE_OPTIONS=${START_SETTINGS.nodeFlags.join(' ')}"`);
  });
});
