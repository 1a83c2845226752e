import type { Db } from '../../domain/db/database.ts';

/** Bare apps (no version: the default caps apply) for metering tests that need no upload. */
export async function insertApps(db: Db, slugs: readonly string[]): Promise<string[]> {
  await db
    .insertInto('accounts')
    .values({ id: 'acc_meter_owner', username: 'meter-owner', email: 'meter-owner@example.com', status: 'active' })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const rows = slugs.map((slug) => ({ id: `app_${slug}`, namespace: 'public', slug, company_id: null, created_by: 'acc_meter_owner' }));
  await db
    .insertInto('apps')
    .values(rows)
    .onConflict((oc) => oc.doNothing())
    .execute();
  return rows.map((r) => r.id);
}

/** Every counter as `app meter period` → amount. */
export async function counters(db: Db): Promise<Record<string, number>> {
  const rows = await db.selectFrom('usage_counters').select(['app_id', 'meter', 'period', 'amount']).execute();
  return Object.fromEntries(rows.map((r) => [`${r.app_id} ${r.meter} ${r.period}`, r.amount]));
}
