// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).

export { decodeTemporalPayloads, type PayloadDecoder, type WirePayload } from './decode-temporal-payloads.ts';
export { ensureInstance, type Instance } from './instance.ts';
export { checkReadiness, databaseCheck, type ReadinessCheck, readinessCheck, shutdownCheck } from './readiness.ts';
