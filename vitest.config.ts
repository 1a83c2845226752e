import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'svc',
          include: ['test/**/*.test.ts'],
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
