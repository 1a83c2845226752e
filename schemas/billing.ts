import { z } from 'zod';

// Billing contracts shared by the service and the CLI. Money is integer micro-USD (millionths of
// a US dollar), never a float.

const Micro = z.number().int().nonnegative().meta({ description: 'Micro-USD: integer millionths of a US dollar.' });
export const Month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a UTC month YYYY-MM');
const ModelName = z.string().min(1).max(64);
const Tokens = z.number().int().nonnegative().max(1_000_000_000);

export const PriceListView = z
  .object({
    version: z.string(),
    effectiveFrom: z.iso.datetime(),
    currency: z.literal('USD'),
    compute: z.object({ perMinuteMicroUsd: Micro }),
    models: z.array(z.object({ model: z.string(), inputPerMillionTokensMicroUsd: Micro, outputPerMillionTokensMicroUsd: Micro })),
  })
  .meta({ id: 'PriceList' });

export const Prices = z.object({
  current: PriceListView,
  lists: z.array(PriceListView).meta({ description: 'Every list, oldest first; a month is billed at the list in effect at its start.' }),
});

export const ModelCall = z.strictObject({
  model: ModelName,
  inputTokens: Tokens,
  outputTokens: Tokens,
  calls: z.number().int().min(1).max(1_000_000).default(1),
});

export const EstimateRequest = z.strictObject({
  computeMinutes: z.number().int().nonnegative().max(10_000_000).default(0),
  modelCalls: z.array(ModelCall).max(100).default([]),
  at: z.iso.datetime().optional().meta({ description: 'Price at this time (default now).' }),
});

export const Estimate = z
  .object({
    priceListVersion: z.string(),
    currency: z.literal('USD'),
    computeMicroUsd: Micro,
    modelCalls: z.array(z.object({ model: z.string(), calls: z.number().int(), costMicroUsd: Micro })),
    totalMicroUsd: Micro,
  })
  .meta({ id: 'BillingEstimate' });

export const BillingRecord = z
  .object({
    month: Month,
    app: z.object({ namespace: z.string(), slug: z.string() }),
    priceListVersion: z.string(),
    computeMs: z.number().int().nonnegative(),
    computeMicroUsd: Micro,
    modelTokens: z.number().int().nonnegative(),
    modelMicroUsd: Micro.meta({ description: 'Priced model cost metered at each call.' }),
    totalMicroUsd: Micro,
    budgetMicroUsd: Micro.nullable().meta({ description: 'monthlyBudgetUsd of the app today; null when unset.' }),
  })
  .meta({ id: 'BillingRecord' });

export const BillingRecords = z.object({ records: z.array(BillingRecord) });

export const BillingSummary = z
  .object({
    namespace: z.string(),
    month: Month,
    currency: z.literal('USD'),
    apps: z.array(BillingRecord),
    totalMicroUsd: Micro,
  })
  .meta({ id: 'BillingSummary' });

export const BudgetCheckQuery = z.strictObject({
  slug: z.string().min(1).max(48),
  model: ModelName,
  inputTokens: z.coerce.number().pipe(Tokens),
  outputTokens: z.coerce.number().pipe(Tokens),
});

export const BudgetCheck = z
  .object({
    app: z.object({ namespace: z.string(), slug: z.string() }),
    month: Month,
    spentMicroUsd: Micro,
    callMicroUsd: Micro,
    budgetMicroUsd: Micro.nullable(),
    tokensToday: z.number().int().nonnegative(),
    dailyTokens: z.number().int(),
    wouldExceed: z
      .boolean()
      .meta({ description: 'The call would pass the monthly budget or today’s tokens: it would be refused with 429 quota_exhausted.' }),
    reasons: z.array(z.enum(['monthlyBudgetUsd', 'dailyTokens'])),
  })
  .meta({ id: 'BudgetCheck' });
