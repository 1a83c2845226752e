import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Db, ProvisioningPart } from '../domain/db/index.ts';
import { DomainError } from '../domain/errors.ts';
import {
  applyPendingMove,
  awaitInstanceRunning,
  beginRun,
  type CloudProvider,
  type CompanyRootPolicy,
  createFolders,
  ensureCloudInstance,
  finishRun,
  type RunContext,
  writeAgentProfiles,
} from '../domain/provisioning/index.ts';
import { heartbeating } from './heartbeat.ts';

/** The run and attempt this activity belongs to, from Temporal's activity context. */
function currentRun(): RunContext {
  const { workflowExecution, attempt } = Context.current().info;
  if (!workflowExecution) throw new Error('provisioning activities run only inside a workflow');
  return { runId: workflowExecution.runId, workflowId: workflowExecution.workflowId, attempt };
}

/** A domain refusal (unsafe path, never initialized, instance terminated) will not pass by retrying. */
async function effect<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DomainError) throw ApplicationFailure.nonRetryable(err.message, err.code);
    throw err;
  }
}

export function createProvisioningActivities(deps: { db: Db; cloud: CloudProvider; companyRoot: CompanyRootPolicy }) {
  return {
    beginProvisioningRun: (input: { cellId: string; part: ProvisioningPart }) =>
      heartbeating(() => effect(() => beginRun(deps.db, currentRun(), input))),
    ensureCloudInstance: (cellId: string) =>
      effect(() => ensureCloudInstance(deps, currentRun(), cellId, () => Context.current().heartbeat())),
    awaitInstanceRunning: (input: { cellId: string; instanceId: string }) =>
      effect(() => awaitInstanceRunning(deps, currentRun(), input, (state) => Context.current().heartbeat(state))),
    applyPendingMove: (cellId: string) => heartbeating(() => effect(() => applyPendingMove(deps, currentRun(), cellId))),
    createFolders: (cellId: string) => heartbeating(() => effect(() => createFolders(deps, currentRun(), cellId))),
    writeAgentProfiles: (cellId: string) => heartbeating(() => effect(() => writeAgentProfiles(deps, currentRun(), cellId))),
    finishProvisioningRun: (outcome: { status: 'completed' } | { status: 'failed'; step: string; error: string }) =>
      heartbeating(() => finishRun(deps.db, currentRun(), outcome)),
  };
}
