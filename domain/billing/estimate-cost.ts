import type { z } from 'zod';
import type { Estimate, EstimateRequest } from '../../schemas/billing.ts';
import { problem } from '../../schemas/problems.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { computeCost, modelCallCost, priceListAt } from './prices.ts';

/** The cost of a described usage at the price list in effect then (default now); nothing is recorded. */
export function estimateCost(clock: Clock, input: z.output<typeof EstimateRequest>): z.input<typeof Estimate> {
  const list = priceListAt(input.at ? new Date(input.at) : clock.now());
  const unknown = input.modelCalls.flatMap((call, i) =>
    list.models.some((m) => m.model === call.model)
      ? []
      : [problem(`modelCalls.${i}.model`, 'unknown_model', `${call.model} is not priced in list ${list.version}`)],
  );
  if (unknown.length) throw new DomainError('invalid_payload', 'Unknown model.', { details: { problems: unknown } });
  const computeMicroUsd = computeCost(list, input.computeMinutes * 60_000);
  const modelCalls = input.modelCalls.map((call) => ({
    model: call.model,
    calls: call.calls,
    costMicroUsd: modelCallCost(list, call)! * call.calls,
  }));
  return {
    priceListVersion: list.version,
    currency: 'USD',
    computeMicroUsd,
    modelCalls,
    totalMicroUsd: modelCalls.reduce((sum, c) => sum + c.costMicroUsd, computeMicroUsd),
  };
}
