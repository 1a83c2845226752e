import type { z } from 'zod';
import type { BillingRecord } from '../../schemas/billing.ts';
import { problem } from '../../schemas/problems.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { COMPUTE_METERS, capsOfApp, nextMonthStart, periodOf, usdToMicro } from '../usage/index.ts';
import { computeCost, priceListAt } from './prices.ts';

type Record = z.input<typeof BillingRecord>;

/** At most two years per request. */
export const MAX_MONTHS = 24;

const monthStart = (month: string) => new Date(`${month}-01T00:00:00.000Z`);
const monthsBetween = (from: string, to: string) => {
  const [fy, fm] = from.split('-').map(Number) as [number, number];
  const [ty, tm] = to.split('-').map(Number) as [number, number];
  return (ty - fy) * 12 + (tm - fm) + 1;
};

/**
 * Per app and UTC month of a namespace, from the metering counters: compute time priced at the
 * list in effect at the month's start, and the model cost metered at each call. For developers
 * of the namespace's company (the route requires the developer role).
 */
export async function listBillingRecords(
  db: DbOrTrx,
  principal: Principal,
  namespace: string,
  range: { from: string; to: string },
): Promise<Record[]> {
  authorize(principal, 'company.manage', { namespace: namespace });
  const months = monthsBetween(range.from, range.to);
  if (months < 1 || months > MAX_MONTHS) {
    throw new DomainError('invalid_payload', `from must not be after to, and at most ${MAX_MONTHS} months apart.`, {
      details: { problems: [problem('query.from', 'invalid_range', `1 to ${MAX_MONTHS} months up to to`)] },
    });
  }
  // Monthly periods (`YYYY-MM`) and daily ones (`YYYY-MM-DD`) of the range sort between these.
  const end = periodOf('month', nextMonthStart(monthStart(range.to)));
  const rows = await db
    .selectFrom('usage_counters as c')
    .innerJoin('apps as a', 'a.id', 'c.app_id')
    .select(['a.id', 'a.slug', 'c.meter', 'c.period', 'c.amount'])
    .where('a.namespace', '=', namespace)
    .where('c.period', '>=', range.from)
    .where('c.period', '<', end)
    .where('c.meter', 'in', [...COMPUTE_METERS, 'model.cost', 'model.tokens'])
    .execute();

  const byKey = new Map<string, { appId: string; slug: string; month: string; computeMs: number; tokens: number; model: number }>();
  for (const row of rows) {
    const month = row.period.slice(0, 7);
    const key = `${month} ${row.slug}`;
    const entry = byKey.get(key) ?? { appId: row.id, slug: row.slug, month, computeMs: 0, tokens: 0, model: 0 };
    byKey.set(key, entry);
    if (row.meter === 'model.cost') entry.model += row.amount;
    else if (row.meter === 'model.tokens') entry.tokens += row.amount;
    else entry.computeMs += row.amount;
  }
  const budgets = new Map<string, number | null>();
  for (const { appId } of byKey.values()) {
    if (budgets.has(appId)) continue;
    const caps = await capsOfApp(db, appId);
    budgets.set(appId, caps.monthlyBudgetUsd === undefined ? null : usdToMicro(caps.monthlyBudgetUsd));
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, e]) => {
      const list = priceListAt(monthStart(e.month));
      const computeMicroUsd = computeCost(list, e.computeMs);
      return {
        month: e.month,
        app: { namespace, slug: e.slug },
        priceListVersion: list.version,
        computeMs: e.computeMs,
        computeMicroUsd,
        modelTokens: e.tokens,
        modelMicroUsd: e.model,
        totalMicroUsd: computeMicroUsd + e.model,
        budgetMicroUsd: budgets.get(e.appId) ?? null,
      };
    });
}
