import { z } from 'zod';
import {
  checkBudget,
  estimateCost,
  listBillingRecords,
  MAX_MONTHS,
  PRICE_LISTS,
  priceListAt,
  summarizeBilling,
} from '../../domain/billing/index.ts';
import { periodOf } from '../../domain/usage/index.ts';
import { AppParams } from '../../schemas/apps.ts';
import {
  BillingRecords,
  BillingSummary,
  BudgetCheck,
  BudgetCheckQuery,
  Estimate,
  EstimateRequest,
  Month,
  Prices,
} from '../../schemas/billing.ts';
import { defineRoute } from '../http/route.ts';

const NamespaceParams = AppParams.pick({ namespace: true });
const MONEY = 'Money is integer micro-USD (millionths of a US dollar).';

export const pricesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/billing/prices',
  operationId: 'getBillingPrices',
  summary: 'The public price list: compute per minute and models per million tokens, versioned by effective date',
  description: `No credential (a public catalog endpoint). ${MONEY}`,
  tags: ['billing'],
  auth: 'none',
  response: { status: 200, description: 'The list in effect now and every list.', schema: Prices },
  handler: async ({ deps }) => ({ data: { current: priceListAt(deps.clock.now()), lists: [...PRICE_LISTS] } }),
});

export const estimateRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/billing/estimate',
  operationId: 'estimateBillingCost',
  summary: 'The cost of a described usage (compute minutes, model calls) at the price list in effect',
  description: `Computes only: nothing is recorded, so it takes no dry-run header. Unknown models are 400 invalid_payload naming the item. ${MONEY}`,
  tags: ['billing'],
  auth: 'credential',
  body: EstimateRequest,
  response: { status: 200, description: 'The estimate, per line and in total.', schema: Estimate },
  errors: ['unauthorized', 'invalid_payload'],
  handler: async ({ deps, body }) => ({ data: estimateCost(deps.clock, body) }),
});

export const billingSummaryRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/billing/{namespace}/summary',
  operationId: 'getBillingSummary',
  summary: 'One UTC month of a namespace: each app’s compute and model cost, and the total',
  description: `For developers of the namespace’s company. \`month\` defaults to the current one. ${MONEY}`,
  tags: ['billing'],
  auth: 'credential',
  snapshot: true,
  params: NamespaceParams,
  query: z.strictObject({ month: Month.optional() }),
  response: { status: 200, description: 'The month’s summary.', schema: BillingSummary },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'invalid_payload'],
  handler: async ({ db, deps, principal, params, query }) => ({
    data: await summarizeBilling(db, principal, params.namespace, query.month ?? periodOf('month', deps.clock.now())),
  }),
});

export const billingRecordsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/billing/{namespace}/records',
  operationId: 'listBillingRecords',
  summary: 'Billing records per app and UTC month, from the metering counters',
  description: `\`from\` and \`to\` are months (default: the current one), at most ${MAX_MONTHS} apart. For developers of the namespace’s company. ${MONEY}`,
  tags: ['billing'],
  auth: 'credential',
  snapshot: true,
  params: NamespaceParams,
  query: z.strictObject({ from: Month.optional(), to: Month.optional() }),
  response: { status: 200, description: 'Records, by month then app.', schema: BillingRecords },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'invalid_payload'],
  async handler({ db, deps, principal, params, query }) {
    const now = periodOf('month', deps.clock.now());
    const records = await listBillingRecords(db, principal, params.namespace, { from: query.from ?? query.to ?? now, to: query.to ?? now });
    return { data: { records } };
  },
});

export const budgetCheckRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/billing/{namespace}/check',
  operationId: 'checkBillingBudget',
  summary: 'Would this model call exceed the app’s monthly budget or today’s tokens?',
  description:
    'Adds the call’s priced cost to this month’s model cost (against monthlyBudgetUsd) and its tokens to today’s (against ' +
    `dailyTokens), from the same counters the model-call gate reads. For developers of the namespace’s company. ${MONEY}`,
  tags: ['billing'],
  auth: 'credential',
  snapshot: true,
  params: NamespaceParams,
  query: BudgetCheckQuery,
  response: { status: 200, description: 'The answer and the figures behind it.', schema: BudgetCheck },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'invalid_payload', 'app_not_found'],
  handler: async ({ db, deps, principal, params, query }) => ({
    data: await checkBudget(db, deps.clock, principal, params.namespace, query),
  }),
});

export const billingRoutes = [pricesRoute, estimateRoute, billingSummaryRoute, billingRecordsRoute, budgetCheckRoute];
