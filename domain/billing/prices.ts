// The public price list: compute and model prices in integer micro-USD (millionths of a dollar),
// versioned by the date they take effect. A month is billed at the list in effect at its start;
// a new list is appended here, never edited in place, so past bills stay reproducible.

export interface ModelPrice {
  model: string;
  inputPerMillionTokensMicroUsd: number;
  outputPerMillionTokensMicroUsd: number;
}

export interface PriceList {
  version: string;
  effectiveFrom: string;
  currency: 'USD';
  compute: { perMinuteMicroUsd: number };
  models: ModelPrice[];
}

/** Oldest first. */
export const PRICE_LISTS: readonly PriceList[] = [
  {
    version: '2026-11-01',
    effectiveFrom: '2026-11-01T00:00:00.000Z',
    currency: 'USD',
    compute: { perMinuteMicroUsd: 2_000 },
    models: [
      { model: 'text-small', inputPerMillionTokensMicroUsd: 150_000, outputPerMillionTokensMicroUsd: 600_000 },
      { model: 'text-large', inputPerMillionTokensMicroUsd: 2_500_000, outputPerMillionTokensMicroUsd: 10_000_000 },
      { model: 'vision', inputPerMillionTokensMicroUsd: 1_250_000, outputPerMillionTokensMicroUsd: 5_000_000 },
      { model: 'transcription', inputPerMillionTokensMicroUsd: 2_500_000, outputPerMillionTokensMicroUsd: 10_000_000 },
    ],
  },
];

/** The list in effect at `at` (before the first one: the first). */
export function priceListAt(at: Date): PriceList {
  let found = PRICE_LISTS[0]!;
  for (const list of PRICE_LISTS) if (Date.parse(list.effectiveFrom) <= at.getTime()) found = list;
  return found;
}

/** quantity × price per `per` units, rounded up to a whole micro-USD; exact in integers. */
export function priceOf(quantity: number, priceMicroUsd: number, per: number): number {
  return Number((BigInt(quantity) * BigInt(priceMicroUsd) + BigInt(per - 1)) / BigInt(per));
}

/** Micro-USD of a model call's tokens, or undefined for a model the list does not price. */
export function modelCallCost(list: PriceList, call: { model: string; inputTokens: number; outputTokens: number }): number | undefined {
  const price = list.models.find((m) => m.model === call.model);
  if (!price) return undefined;
  return (
    priceOf(call.inputTokens, price.inputPerMillionTokensMicroUsd, 1_000_000) +
    priceOf(call.outputTokens, price.outputPerMillionTokensMicroUsd, 1_000_000)
  );
}

/** Compute milliseconds at the list's per-minute price. */
export const computeCost = (list: PriceList, ms: number) => priceOf(ms, list.compute.perMinuteMicroUsd, 60_000);
