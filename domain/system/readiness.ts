import { sql } from 'kysely';
import type { Db } from '../db/index.ts';

// Readiness (`GET /api/v1/health/ready`): can this process do its work now? Each dependency it
// uses is probed with a deadline; liveness (`GET /api/v1/health`) probes none of them.

/** One dependency of this process, or one it does not use and says why. */
export type ReadinessCheck = { name: string; probe(signal: AbortSignal): Promise<unknown> } | { name: string; skipped: string };

export type CheckResult =
  | { status: 'ok'; ms: number }
  | { status: 'failed'; ms: number; reason: string }
  | { status: 'skipped'; reason: string };

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

/**
 * A check whose probes never pile up: while one runs, later callers share it, so a dependency
 * that hangs costs one probe however often readiness is asked.
 */
export function readinessCheck(name: string, probe: (signal: AbortSignal) => Promise<unknown>): ReadinessCheck {
  let inFlight: Promise<unknown> | undefined;
  return {
    name,
    probe: (signal) =>
      (inFlight ??= probe(signal).finally(() => {
        inFlight = undefined;
      })),
  };
}

/** A check that fails for a reason of its own, safe to show without a credential. */
class NotReady extends Error {}

/**
 * Fails from the moment the process begins to shut down, while it still serves: a balancer
 * probing readiness stops sending to it before its listener closes (SVC_SHUTDOWN_DELAY_MS later).
 */
export function shutdownCheck(): { check: ReadinessCheck; begin(): void } {
  let stopping = false;
  return {
    check: {
      name: 'shutdown',
      probe: async () => {
        if (stopping) throw new NotReady('shutting down');
      },
    },
    begin: () => {
      stopping = true;
    },
  };
}

/** The database answers a statement on the service's own pool (a full pool waits like any request). */
export const databaseCheck = (db: Db) => readinessCheck('database', () => sql`SELECT 1`.execute(db));

/**
 * Every check at once, each within `deadlineMs`. Reasons are short and generic (the route needs
 * no credential); `onFailure` gets the error itself, for the log.
 */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  deadlineMs: number,
  onFailure: (name: string, err: unknown) => void,
): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async (check): Promise<[string, CheckResult]> => {
      if ('skipped' in check) return [check.name, { status: 'skipped', reason: check.skipped }];
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      const deadline = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          deadline.abort();
          reject(new Error(`no answer within ${deadlineMs} ms`));
        }, deadlineMs);
      });
      try {
        await Promise.race([check.probe(deadline.signal), late]);
        return [check.name, { status: 'ok', ms: ms() }];
      } catch (err) {
        if (err instanceof NotReady) return [check.name, { status: 'failed', ms: ms(), reason: err.message }];
        onFailure(check.name, err);
        return [
          check.name,
          { status: 'failed', ms: ms(), reason: deadline.signal.aborted ? `no answer within ${deadlineMs} ms` : 'unreachable' },
        ];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ready: results.every(([, r]) => r.status !== 'failed'), checks: Object.fromEntries(results) };
}
