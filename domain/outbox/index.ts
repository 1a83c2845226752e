// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export type { OutboxEvent, OutboxEvents, OutboxTopic } from './events.ts';
export { claimDue, enqueue, markDelivered, markFailed, OUTBOX_CHANNEL } from './repository.ts';
