// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { checkBudget } from './check-budget.ts';
export { estimateCost } from './estimate-cost.ts';
export { listBillingRecords, MAX_MONTHS } from './list-billing-records.ts';
export { PRICE_LISTS, priceListAt } from './prices.ts';
export { summarizeBilling } from './summarize-billing.ts';
