import type { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { migrations } from './migrations/index.ts';

/**
 * Kysely sorts a provider's names as plain strings (`.10` before `.2`) and uses `nameComparator`
 * only for migrations already run. So each pending migration is offered alone, in
 * `compareMigrationNames` order, beside those already run: Kysely then runs exactly that one.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const all = Object.keys(migrations).sort(compareMigrationNames);
  const migrator = (names: readonly string[]) =>
    new Migrator({
      db,
      provider: { getMigrations: async () => Object.fromEntries(names.map((n) => [n, migrations[n]!])) },
      nameComparator: compareMigrationNames,
      allowUnorderedMigrations: true,
    });
  const executed = (await migrator(all).getMigrations()).filter((m) => m.executedAt).map((m) => m.name);
  const applied: string[] = [];
  for (const name of all.filter((n) => !executed.includes(n))) {
    const { error, results } = await migrator([...executed, ...applied, name]).migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (error || failed) {
      const which = failed ? ` (${failed.migrationName})` : '';
      throw new Error(`database migration failed${which}: ${error instanceof Error ? error.message : String(error)}`);
    }
    applied.push(...(results ?? []).map((r) => r.migrationName));
  }
  return applied;
}

/** Names are `<ISO date>.<n>-<what>`: by date, then by the number `n` (so `.10` runs after `.9`). */
export function compareMigrationNames(a: string, b: string): number {
  const [dateA = '', stepA = ''] = a.split('.', 2);
  const [dateB = '', stepB = ''] = b.split('.', 2);
  if (dateA !== dateB) return dateA < dateB ? -1 : 1;
  const byStep = Number.parseInt(stepA, 10) - Number.parseInt(stepB, 10);
  return byStep !== 0 ? byStep : a < b ? -1 : a > b ? 1 : 0;
}
