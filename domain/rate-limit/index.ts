// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { consume, consumeReserved, forgetRefusedWindows, type Limit, tenantOf } from './rate-limit.ts';
