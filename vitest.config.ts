import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `@svc/temporal-dev` from this checkout's infra/temporal-dev: node_modules links the workspace
// package of the tree that ran `npm install`, which in a git worktree is another checkout's.
const temporalDev = (file: string) => fileURLToPath(new URL(`./infra/temporal-dev/${file}`, import.meta.url));

export default defineConfig({
  test: {
    // Two test files at once on CI's two cores (vitest's default is cores - 1): the suite waits on
    // PostgreSQL, Temporal and a browser as much as on its own CPU. Measured on a quiet machine:
    // 780 s against 1,391 s one at a time, same 2,655 tests green.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'svc',
          include: ['test/**/*.test.ts'],
          alias: [
            { find: /^@svc\/temporal-dev\/testing$/, replacement: temporalDev('testing.ts') },
            { find: /^@svc\/temporal-dev$/, replacement: temporalDev('index.ts') },
          ],
          // One PostgreSQL for the run; each test file clones its own database from a migrated template.
          globalSetup: ['test/support/postgres-global-setup.ts'],
          pool: 'forks',
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      // The workspace package's own suite, with its own config (no PostgreSQL).
      'infra/temporal-dev/vitest.config.ts',
    ],
  },
});
