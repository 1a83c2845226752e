import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { InternalWorkflowStartOptionsSymbol } from '@temporalio/client/lib/internal.js';
import pg from 'pg';
import type { Logger } from 'pino';
import { appLabels } from '../domain/apps/index.ts';
import { companyLabels } from '../domain/companies/index.ts';
import type { Db } from '../domain/db/index.ts';
import {
  claimDue,
  markDelivered,
  markFailed,
  OUTBOX_CHANNEL,
  type OutboxEvent,
  type OutboxEvents,
  type OutboxTopic,
} from '../domain/outbox/index.ts';
import { recordRunStart } from '../domain/provisioning/index.ts';
import {
  appApiRunWorkflowId,
  deviceLoginClosed,
  deviceLoginWorkflowId,
  mediaUploadAssemblyWorkflowId,
  memberInvitationsWorkflowId,
  platformSyncWorkflowId,
  provisioningWorkflowId,
  runLabels,
  TASK_QUEUE,
  worldGenerationWorkflowId,
} from '../workflows/contract.ts';
import type {
  appWorkflowRun,
  companyInitialization,
  deviceLoginExpiry,
  mediaUploadAssembly,
  memberInvitations,
  platformDataSync,
  worldGeneration,
} from '../workflows/index.ts';
import { reconcileAppTriggers, signalChangeTriggers } from './app-triggers.ts';
import { reconcileAutomation, signalAutomations } from './automations.ts';
import { cancelDataBuild, reconcileDataSyncSchedule, startDataBuild } from './data-pipelines.ts';

// The relay of the transactional outbox: what a use case committed as an intent becomes a
// workflow start or signal here, with the workflow id derived from the business key. A start
// that finds its workflow already there, and a signal whose workflow has already finished,
// count as delivered, so delivering twice (a relay died before deleting the row) is harmless.
// Every start carries its labels (runLabels: memo and search attributes), so the Web UI names the
// run's company, app, kind and version instead of an opaque id, and the intent's id as its request
// id: a start the server took whose answer was lost (the relay's deadline passed, Temporal
// restarted) is answered, when the relay tries again, with the run it made, even once that run has
// closed, instead of starting a second one.

type Delivery<T extends OutboxTopic> = (client: Client, key: string, payload: OutboxEvents[T], db: Db, intentId: string) => Promise<void>;

/** The start's request id (the SDK's option for it, which its Nexus helpers use). */
const startOnce = (intentId: string) => ({ [InternalWorkflowStartOptionsSymbol]: { requestId: intentId } });

const DELIVERIES: { [T in OutboxTopic]: Delivery<T> } = {
  'device-login.started': async (client, key, payload, _db, intentId) => {
    await client.workflow.start<typeof deviceLoginExpiry>('deviceLoginExpiry', {
      ...startOnce(intentId),
      taskQueue: TASK_QUEUE,
      workflowId: deviceLoginWorkflowId(key),
      args: [{ deviceLoginId: key, expiresAt: payload.expiresAt }],
      ...runLabels({ kind: 'device-login' }),
    });
  },
  'device-login.closed': async (client, key, payload) => {
    await client.workflow.getHandle(deviceLoginWorkflowId(key)).signal(deviceLoginClosed, payload.reason);
  },
  // Starts the run, or joins the one already going under the same business key (use-existing),
  // and reports the run id on the request, where the waiting API call and the status find it.
  'company-init.requested': async (client, key, payload, db, intentId) => {
    const handle = await client.workflow.start<typeof companyInitialization>('companyInitialization', {
      ...startOnce(intentId),
      taskQueue: TASK_QUEUE,
      workflowId: provisioningWorkflowId(payload.cellId, payload.part),
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [{ cellId: payload.cellId, part: payload.part }],
      // The company on the run itself (metadata only: its cell id and name, the part).
      ...runLabels({ kind: 'company-initialization', ...(await companyLabels(db, payload.cellId)), provisioningPart: payload.part }),
    });
    await recordRunStart(db, key, handle.firstExecutionRunId);
  },
  'app-workflows.changed': async (client, _key, payload, db) => {
    await reconcileAppTriggers(client, db, payload.appId);
  },
  'app-workflow.run': async (client, _key, payload, db, intentId) => {
    await client.workflow.start<typeof appWorkflowRun>('appWorkflowRun', {
      ...startOnce(intentId),
      taskQueue: TASK_QUEUE,
      workflowId: appApiRunWorkflowId(payload.runId),
      args: [{ appId: payload.appId, trigger: 'api', runId: payload.runId }],
      ...runLabels({ kind: 'app-run', ...(await appLabels(db, payload.appId, payload.runId)), runId: payload.runId }),
    });
  },
  'ontology.changed': async (client, _key, payload, db) => {
    await signalChangeTriggers(client, db, payload);
    await signalAutomations(client, db, payload);
  },
  'automation.changed': async (client, key, _payload, db) => {
    await reconcileAutomation(client, db, key);
  },
  'data-build.requested': async (client, key, _payload, db, intentId) => {
    await startDataBuild(client, db, key, startOnce(intentId));
  },
  'data-build.cancelled': async (client, key, _payload, db) => {
    await cancelDataBuild(client, db, key);
  },
  'platform-sync.requested': async (client, _key, payload, db, intentId) => {
    await client.workflow.start<typeof platformDataSync>('platformDataSync', {
      ...startOnce(intentId),
      taskQueue: TASK_QUEUE,
      workflowId: platformSyncWorkflowId(payload.companyId),
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [{ companyId: payload.companyId }],
      ...runLabels({ kind: 'platform-sync', ...(await companyLabels(db, payload.companyId)) }),
    });
  },
  'data-sync.changed': async (client, key, _payload, db) => {
    await reconcileDataSyncSchedule(client, db, key);
  },
  // The emails go out in the workflow, each retried on its own until the SMTP server takes it.
  'members.invited': async (client, key, payload, db, intentId) => {
    await client.workflow.start<typeof memberInvitations>('memberInvitations', {
      ...startOnce(intentId),
      taskQueue: TASK_QUEUE,
      workflowId: memberInvitationsWorkflowId(key),
      args: [payload],
      ...runLabels({ kind: 'member-invitations', ...(await companyLabels(db, payload.companyId)) }),
    });
  },
  // Each upload's assembly is its own run, labelled with the company, so the Web UI lists a company's uploads.
  'media-upload.completing': async (client, key, payload, db, intentId) => {
    await client.workflow.start<typeof mediaUploadAssembly>('mediaUploadAssembly', {
      ...startOnce(intentId),
      taskQueue: TASK_QUEUE,
      workflowId: mediaUploadAssemblyWorkflowId(key),
      args: [{ uploadId: payload.uploadId }],
      ...runLabels({ kind: 'media-upload', ...(await companyLabels(db, payload.companyId)) }),
    });
  },
  'world-generation.requested': async (client, key, payload, db, intentId) => {
    await client.workflow.start<typeof worldGeneration>('worldGeneration', {
      ...startOnce(intentId),
      taskQueue: TASK_QUEUE,
      workflowId: worldGenerationWorkflowId(key),
      args: [{ generationId: payload.generationId }],
      ...runLabels({ kind: 'world-generation', ...(await appLabels(db, payload.appId)) }),
    });
  },
};

/** The listener's application_name: an operator finds it in pg_stat_activity (one per worker while it listens). */
export const RELAY_LISTENER_NAME = 'svc-outbox-relay';

/** How long one delivery may wait for Temporal before it counts as failed and is retried later. */
const DELIVERY_DEADLINE_MS = 10_000;
const BATCH = 20;
const LEASE_SECONDS = 30;
const MAX_BACKOFF_SECONDS = 300;

async function deliver(client: Client, db: Db, intentId: string, event: OutboxEvent, deadlineMs: number): Promise<void> {
  const send = DELIVERIES[event.topic] as Delivery<OutboxTopic>;
  try {
    await client.withDeadline(Date.now() + deadlineMs, () => send(client, event.key, event.payload, db, intentId));
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError || err instanceof WorkflowNotFoundError) return;
    throw err;
  }
}

export interface OutboxRelayDeps {
  db: Db;
  client: Client;
  logger: Logger;
  /** How long one delivery may wait for Temporal before it counts as failed (default 10 s). */
  deadlineMs?: number;
}

/** One pass: delivers every intent due now; returns how many were delivered. */
export async function relayDue(deps: OutboxRelayDeps): Promise<number> {
  let delivered = 0;
  for (;;) {
    const claimed = await claimDue(deps.db, BATCH, LEASE_SECONDS);
    for (const { id, event, attempts } of claimed) {
      try {
        await deliver(deps.client, deps.db, id, event, deps.deadlineMs ?? DELIVERY_DEADLINE_MS);
        await markDelivered(deps.db, id);
        delivered++;
      } catch (err) {
        const retryIn = Math.min(MAX_BACKOFF_SECONDS, 2 ** Math.min(attempts, 9));
        deps.logger.warn({ err, topic: event.topic, key: event.key, attempts, retryIn }, 'outbox delivery failed; will retry');
        await markFailed(deps.db, id, err instanceof Error ? err.message : String(err), retryIn);
      }
    }
    if (claimed.length < BATCH) return delivered;
  }
}

export interface OutboxRelayOptions extends OutboxRelayDeps {
  /** LISTENs here so a commit anywhere wakes the relay at once; without it the relay only polls. */
  databaseUrl?: string | undefined;
  /** Poll interval: picks up retries that come due and intents whose notification was missed. */
  pollMs?: number;
}

/** Runs the relay until `stop`. */
export function startOutboxRelay(opts: OutboxRelayOptions) {
  const pollMs = opts.pollMs ?? 1000;
  let stopped = false;
  let wake: (() => void) | undefined;
  let listener: pg.Client | undefined;

  const listen = async () => {
    if (!opts.databaseUrl || listener) return;
    const client = new pg.Client({ connectionString: opts.databaseUrl, application_name: RELAY_LISTENER_NAME });
    client.on('notification', () => wake?.());
    client.on('error', (err) => {
      opts.logger.warn({ err }, 'outbox listener lost; polling until it reconnects');
      if (listener === client) listener = undefined;
      void client.end().catch(() => undefined);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      listener = client;
    } catch (err) {
      opts.logger.warn({ err }, 'outbox listener could not connect; polling');
      await client.end().catch(() => undefined);
    }
  };

  const loop = (async () => {
    while (!stopped) {
      await listen();
      try {
        await relayDue(opts);
      } catch (err) {
        opts.logger.warn({ err }, 'outbox relay pass failed');
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      await listener?.end().catch(() => undefined);
    },
  };
}
