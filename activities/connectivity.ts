import { Context } from '@temporalio/activity';
import {
  type ConnectivitySettings,
  endBuild,
  endJob,
  preparePlatformTypes,
  prunePlatformObjects,
  recordScheduledBuild,
  runSyncJob,
  startBuild,
  syncPlatformPage,
} from '../domain/connectivity/index.ts';
import type { Db } from '../domain/db/index.ts';
import type { PlatformEntity } from '../domain/ontology/index.ts';
import { heartbeating } from './heartbeat.ts';

export function createConnectivityActivities(deps: { db: Db; connectivity: ConnectivitySettings }) {
  return {
    /** A scheduled run's build, recorded under the run's workflow id (again on a retry: the same build). */
    recordScheduledDataBuild: (input: { syncId: string; workflowId: string }) =>
      recordScheduledBuild(deps.db, input.syncId, input.workflowId),
    /** QUEUED → RUNNING; the jobs to run in order. */
    startDataBuild: (buildId: string) => startBuild(deps.db, buildId),
    /**
     * One job, page by page, each page committed with its cursor: a retry after a crash resumes
     * after the last committed page. Heartbeats while it runs; cancellation ends the source's connections.
     */
    runDataSyncJob: (input: { buildId: string; position: number }) =>
      heartbeating(() => {
        const context = Context.current();
        return runSyncJob(deps.db, deps.connectivity, input, {
          heartbeat: () => context.heartbeat(),
          signal: context.cancellationSignal,
        });
      }),
    endDataSyncJob: (input: { buildId: string; position: number; error: { code: string; message: string } }) =>
      endJob(deps.db, input.buildId, input.position, 'FAILED', input.error),
    /** The platform data source: its types made or updated, then one page (one transaction) per call, then what is gone removed. */
    preparePlatformTypes: (companyId: string) => preparePlatformTypes(deps.db, companyId),
    syncPlatformPage: (input: { companyId: string; entity: PlatformEntity; after: string }) => syncPlatformPage(deps.db, input),
    prunePlatformObjects: (input: { companyId: string; entity: PlatformEntity }) => prunePlatformObjects(deps.db, input),
    endDataBuild: (input: { buildId: string; cancelled?: boolean }) =>
      endBuild(deps.db, input.buildId, input.cancelled ? 'CANCELLED' : undefined),
  };
}
