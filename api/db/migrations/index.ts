import type { Migration } from 'kysely/migration';
import * as foundation from './2026-11-22-foundation.ts';
import * as identity from './2026-11-22-identity.ts';

// Listed explicitly (not read from the folder) so the set is fixed at build time.
// Names sort in the order they run: ISO date first.
export const migrations: Record<string, Migration> = {
  '2026-11-22-foundation': foundation,
  '2026-11-22-identity': identity,
};
