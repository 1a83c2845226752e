import type { z } from 'zod';
import type { BudgetCheck, BudgetCheckQuery } from '../../schemas/billing.ts';
import { problem } from '../../schemas/problems.ts';
import { getApp } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { capsOfApp, periodOf, readCounters, usdToMicro } from '../usage/index.ts';
import { modelCallCost, priceListAt } from './prices.ts';

/**
 * Would this model call exceed the app's limits? This month's priced model cost plus the call
 * against monthlyBudgetUsd, today's tokens plus the call's against dailyTokens: the same counters
 * and caps the model-call gate reads (domain/usage/check-quota.ts).
 */
export async function checkBudget(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  namespace: string,
  call: z.output<typeof BudgetCheckQuery>,
): Promise<z.input<typeof BudgetCheck>> {
  authorize(principal, 'company.read', { namespace: namespace });
  const app = await getApp(db, namespace, call.slug);
  const now = clock.now();
  const list = priceListAt(now);
  const callMicroUsd = modelCallCost(list, call);
  if (callMicroUsd === undefined) {
    throw new DomainError('invalid_payload', 'Unknown model.', {
      details: { problems: [problem('query.model', 'unknown_model', `${call.model} is not priced in list ${list.version}`)] },
    });
  }
  const [caps, counters] = await Promise.all([capsOfApp(db, app.id), readCounters(db, app.id, ['model.cost', 'model.tokens'], now)]);
  const budgetMicroUsd = caps.monthlyBudgetUsd === undefined ? null : usdToMicro(caps.monthlyBudgetUsd);
  const reasons: ('monthlyBudgetUsd' | 'dailyTokens')[] = [];
  if (budgetMicroUsd !== null && counters['model.cost'] + callMicroUsd > budgetMicroUsd) reasons.push('monthlyBudgetUsd');
  if (counters['model.tokens'] + call.inputTokens + call.outputTokens > caps.dailyTokens) reasons.push('dailyTokens');
  return {
    app: { namespace, slug: call.slug },
    month: periodOf('month', now),
    spentMicroUsd: counters['model.cost'],
    callMicroUsd,
    budgetMicroUsd,
    tokensToday: counters['model.tokens'],
    dailyTokens: caps.dailyTokens,
    wouldExceed: reasons.length > 0,
    reasons,
  };
}
