// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { listSecurityEvents } from './list-security-events.ts';
export { recordSecurityEvent } from './record-security-event.ts';
