// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { serveThreadCalls, ThreadChannel } from './thread-channel.ts';
export { SPARE_CORES, WorkerPool, WorkerTimeoutError } from './worker-pool.ts';
