import { sql } from 'kysely';
import { type Limits, limitsSchema } from '../../schemas/manifest/limits.ts';
import type { DbOrTrx } from '../db/index.ts';
import { type Meter, meterPeriod } from './meters.ts';

/**
 * An app's caps: the manifest `limits` of the version in production, else in test, else of the
 * newest upload (absent keys take their defaults). One app has one quota, whichever channel is
 * opened.
 */
export async function capsOfApp(db: DbOrTrx, appId: string): Promise<Limits> {
  const row = await db
    .selectFrom('apps as a')
    .innerJoin('app_versions as v', (join) =>
      join.onRef(
        'v.id',
        '=',
        sql<string>`coalesce(a.production_version_id, a.test_version_id,
          (SELECT id FROM app_versions n WHERE n.app_id = a.id ORDER BY n.build DESC LIMIT 1))`,
      ),
    )
    .select(sql<unknown>`v.manifest -> 'limits'`.as('limits'))
    .where('a.id', '=', appId)
    .executeTakeFirst();
  return limitsSchema.parse(row?.limits ?? undefined);
}

/** The current amounts of the given meters, each in the period `at` falls in (0 when unused). */
export async function readCounters<M extends Meter>(
  db: DbOrTrx,
  appId: string,
  meters: readonly M[],
  at: Date,
): Promise<Record<M, number>> {
  const amounts = Object.fromEntries(meters.map((m) => [m, 0])) as Record<M, number>;
  if (meters.length === 0) return amounts;
  const rows = await db
    .selectFrom('usage_counters')
    .select(['meter', 'period', 'amount'])
    .where('app_id', '=', appId)
    .where((eb) => eb.or(meters.map((m) => eb.and([eb('meter', '=', m), eb('period', '=', meterPeriod(m, at))]))))
    .execute();
  for (const row of rows) amounts[row.meter as M] = row.amount;
  return amounts;
}
