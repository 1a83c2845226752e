import type { DomainDeps } from '../domain/deps.ts';
import type { Instance, ReadinessCheck } from '../domain/system/index.ts';
import type { BodyBuffer } from './http/body-buffer.ts';

/** What routes may reach: the use cases' dependencies plus the HTTP settings. */
export interface ApiDeps extends DomainDeps {
  http: {
    maxBodyBytes: number;
    /** Request bodies held in memory at once (SVC_BODY_BUFFER_BYTES). */
    bodyBuffer: BodyBuffer;
    /** Peers whose X-Forwarded-For is believed. */
    trustedProxies: readonly string[];
    /** How long a control-plane start waits for the relay to report its run id (SVC_RUN_START_WAIT_MS). */
    runStartWaitMs: number;
  };
  health: {
    /** This installation, read once at start: liveness answers without the database. */
    instance: Instance;
    /** What readiness probes: the dependencies this process's role uses (the composition root decides). */
    readiness: readonly ReadinessCheck[];
  };
}
