import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { Migrator } from 'kysely/migration';
import { migrations as declared } from './migrations/index.ts';

/**
 * Applies the pending migrations in `compareMigrationNames` order. Kysely runs the migrations it
 * is given in plain string order (`.10` before `.2`; its `nameComparator` orders only the executed
 * ones), so each run is given the executed migrations plus the next pending one alone. The
 * executed set is read again before each run: another process may be migrating too (Kysely's
 * lock makes the runs one at a time); a run that finds more executed than it was given (that
 * process got further meanwhile) is read and run again.
 */
export async function migrateToLatest(db: Kysely<any>, migrations: Record<string, Migration> = declared): Promise<string[]> {
  const ordered = Object.keys(migrations).sort(compareMigrationNames);
  const migrator = (names: readonly string[]) =>
    new Migrator({
      db,
      provider: { getMigrations: async () => Object.fromEntries(names.map((name) => [name, migrations[name]!])) },
      nameComparator: compareMigrationNames,
      allowUnorderedMigrations: true,
    });
  const applied: string[] = [];
  let races = 0;
  for (;;) {
    const executed = new Set((await migrator(ordered).getMigrations()).filter((m) => m.executedAt).map((m) => m.name));
    const next = ordered.find((name) => !executed.has(name));
    if (next === undefined) return applied;
    const { error, results } = await migrator([...executed, next]).migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (error instanceof Error && /previously executed migration .* is missing/.test(error.message) && races < ordered.length) {
      races += 1;
      continue;
    }
    if (error || failed) {
      const name = failed ? ` (${failed.migrationName})` : '';
      throw new Error(`database migration failed${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
    applied.push(...(results ?? []).map((r) => r.migrationName));
  }
}

/** Names are `<ISO date>.<n>-<what>`: by date, then by the number `n` (so `.10` runs after `.9`). */
export function compareMigrationNames(a: string, b: string): number {
  const [dateA = '', stepA = ''] = a.split('.', 2);
  const [dateB = '', stepB = ''] = b.split('.', 2);
  if (dateA !== dateB) return dateA < dateB ? -1 : 1;
  const byStep = Number.parseInt(stepA, 10) - Number.parseInt(stepB, 10);
  return byStep !== 0 ? byStep : a < b ? -1 : a > b ? 1 : 0;
}
