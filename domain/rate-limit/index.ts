// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { type Counted, consume, count, forgetRefusedWindows, judge, type Limit, tenantOf } from './rate-limit.ts';
