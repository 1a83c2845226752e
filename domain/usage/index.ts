// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export {
  assertModelCallAllowed,
  assertTicketReuseAllowed,
  assertTicketsAllowed,
  assertTriggerMayStart,
  assertWorldCreditsAvailable,
  consumeAppRequest,
  usdToMicro,
} from './check-quota.ts';
export { getAppUsage } from './get-app-usage.ts';
export { COMPUTE_METERS, nextMonthStart, periodOf } from './meters.ts';
export { recordMonthlyReset } from './record-monthly-reset.ts';
export { recordUsage, type UsageIncrement } from './record-usage.ts';
export { capsOfApp, readCounters } from './repository.ts';
export { createUsageMeter, type UsageMeter } from './usage-meter.ts';
