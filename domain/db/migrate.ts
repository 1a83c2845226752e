import type { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { migrations } from './migrations/index.ts';

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    nameComparator: compareMigrationNames,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const name = failed ? ` (${failed.migrationName})` : '';
    throw new Error(`database migration failed${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).map((r) => r.migrationName);
}

/** Names are `<ISO date>.<n>-<what>`: by date, then by the number `n` (so `.10` runs after `.9`). */
export function compareMigrationNames(a: string, b: string): number {
  const [dateA = '', stepA = ''] = a.split('.', 2);
  const [dateB = '', stepB = ''] = b.split('.', 2);
  if (dateA !== dateB) return dateA < dateB ? -1 : 1;
  const byStep = Number.parseInt(stepA, 10) - Number.parseInt(stepB, 10);
  return byStep !== 0 ? byStep : a < b ? -1 : a > b ? 1 : 0;
}
