import type { DomainDeps } from '../domain/deps.ts';

/** What routes may reach: the use cases' dependencies plus the HTTP settings. */
export interface ApiDeps extends DomainDeps {
  http: {
    maxBodyBytes: number;
    /** Peers whose X-Forwarded-For is believed. */
    trustedProxies: readonly string[];
    /** How long a control-plane start waits for the relay to report its run id (SVC_RUN_START_WAIT_MS). */
    runStartWaitMs: number;
  };
}
