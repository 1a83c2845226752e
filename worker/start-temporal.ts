import path from 'node:path';
import type { DataConverter } from '@temporalio/common';
import type { Logger } from 'pino';
import type { ActivityDeps } from '../activities/index.ts';
import type { AppScheduleObserver } from '../domain/apps/index.ts';
import type { LiveRunObserver } from '../domain/provisioning/index.ts';
import type { AesGcmPayloadCodec } from '../infra/temporal-codec/payload-codec.ts';
import { connectTemporal, describeOwnNamespace, type TemporalConnections } from './connect-temporal.ts';
import { startOutboxRelay } from './outbox-relay.ts';
import { temporalRunObserver } from './provisioning-observer.ts';
import { runWorker } from './run-worker.ts';
import { temporalScheduleObserver } from './schedule-observer.ts';
import { reconcileAllSchedules } from './schedules.ts';
import { ensureSearchAttributes } from './search-attributes.ts';

export interface StartedTemporal {
  connected: TemporalConnections;
  liveRuns: LiveRunObserver;
  appSchedules: AppScheduleObserver;
  /** Readiness: the frontend answers for our namespace. */
  probe(signal: AbortSignal): Promise<unknown>;
  /** Stops the relay, the worker and the connections, in that order. */
  stop(): Promise<void>;
}

/**
 * The Temporal side of roles all and worker: the connection (or the embedded server), the worker,
 * search attributes, the schedules' first reconcile and the outbox relay. The service imports this
 * module only for those roles, so an API process never loads the SDK's client, worker and bundler
 * (about 60 MB resident).
 */
export async function startTemporal(opts: {
  settings: {
    /** TEMPORAL_ADDRESS; undefined: the embedded server. */
    address: string | undefined;
    namespace: string;
    dataDir: string;
    uiPort: number | undefined;
    cachedWorkflows: number;
    /** Where the payload key came from, for the log. */
    keySource: string;
  };
  codec: AesGcmPayloadCodec;
  databaseUrl: string;
  logger: Logger;
  activityDeps: Omit<ActivityDeps, 'logger'>;
}): Promise<StartedTemporal> {
  const { settings, codec, logger } = opts;
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch((err) => logger.error({ err }, 'shutdown step failed'));
  };
  try {
    // The one data converter of every Temporal client and worker this process makes.
    const dataConverter: DataConverter = { payloadCodecs: [codec] };
    logger.info({ keyId: codec.keyId, source: settings.keySource }, 'Temporal payloads are encrypted');
    const connected = await connectTemporal({
      address: settings.address,
      namespace: settings.namespace,
      dataDir: settings.dataDir,
      uiPort: settings.uiPort,
      dataConverter,
      logger,
    });
    stops.push(() => connected.close());
    const worker = await runWorker(connected, {
      ...opts.activityDeps,
      logger,
      bundleCacheDir: path.join(settings.dataDir, 'cache'),
      maxCachedWorkflows: settings.cachedWorkflows,
    });
    stops.push(() => worker.stop());
    // Before the relay: every start sets these attributes, which the server must know. A
    // cluster that keeps its operator API from this credential has them registered by hand (docs).
    await ensureSearchAttributes(connected.client, settings.namespace).then(
      (added) => {
        if (added.length) logger.info({ searchAttributes: added }, 'search attributes registered');
      },
      (err: unknown) =>
        logger.warn(
          { err },
          'cannot register svc’s search attributes (SvcCellId, SvcProvisioningPart, SvcKind, SvcAppSlug, SvcVersion, SvcRunId): register them by hand (docs/operators/temporal.md)',
        ),
    );
    // The first pass; the reconcile schedule (among the product schedules) repeats it every few minutes.
    const { product, apps: reconciled, automations } = await reconcileAllSchedules(connected.client, opts.activityDeps.db);
    logger.info({ schedules: product }, 'schedules ensured');
    if (Object.keys(reconciled.failed).length) logger.warn(reconciled, 'some app workflow triggers could not be reconciled');
    else logger.info({ apps: reconciled.apps }, 'app workflow triggers reconciled');
    if (Object.keys(automations.failed).length) logger.warn(automations, 'some automations could not be reconciled');
    else logger.info({ automations: automations.automations }, 'automations reconciled');
    const relay = startOutboxRelay({ db: opts.activityDeps.db, client: connected.client, logger, databaseUrl: opts.databaseUrl });
    stops.push(() => relay.stop());
    return {
      connected,
      liveRuns: temporalRunObserver(connected.client),
      appSchedules: temporalScheduleObserver(connected.client),
      probe: (signal) => describeOwnNamespace(connected, signal),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
