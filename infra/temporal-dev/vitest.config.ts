import { defineConfig } from 'vitest/config';

// The temporal-dev conformance suite (also a project of the root's `npm test`). No database.
export default defineConfig({
  test: {
    name: 'temporal-dev',
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
