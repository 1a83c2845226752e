// Worker deployment versioning through the SDK: versioned workers (workerDeploymentOptions)
// register their deployment and version by polling; the routing config (current and ramping
// version) decides where new and AUTO_UPGRADE workflows run, PINNED ones stay on their version,
// overrides move them; the deployment RPCs as the CLI and UI call them.
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter, type WorkerDeploymentVersion } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemporalEnv } from '../testing.ts';
import { eventTypes, eventually, grpcError, type RunningWorker, startWorker } from './helpers.ts';
import {
  noticesQuery,
  noticesTarget,
  parentOfUpgrading,
  pinnedHop,
  pinnedSteps,
  proceedSignal,
  rampHop,
  seenQuery,
  upgradingSteps,
} from './workflows/index.ts';

const { VersioningBehavior, WorkerDeploymentVersionStatus, VersionDrainageStatus, TaskQueueType } = temporal.api.enums.v1;
const FAILED_PRECONDITION = 9;
const NOT_FOUND = 5;
const INVALID_ARGUMENT = 3;

const deploymentName = `deployment-${randomUUID()}`;
const taskQueue = `versioning-${randomUUID()}`;
const v1: WorkerDeploymentVersion = { deploymentName, buildId: '1.0' };
const v2: WorkerDeploymentVersion = { deploymentName, buildId: '2.0' };
const namespace = 'default';

let env: TestWorkflowEnvironment;
const workers = new Map<string, RunningWorker>();

/** A worker of `version` (or unversioned) whose activity `whoAmI` answers `name`. */
async function worker(name: string, version?: WorkerDeploymentVersion): Promise<RunningWorker> {
  const running = await startWorker(env, {
    taskQueue,
    activities: { whoAmI: async () => name },
    identity: `worker-${name}`,
    ...(version && { workerDeploymentOptions: { version, useWorkerVersioning: true, defaultVersioningBehavior: 'AUTO_UPGRADE' } }),
  });
  workers.set(name, running);
  return running;
}

beforeAll(async () => {
  env = await createTemporalEnv('local');
});
afterAll(async () => {
  for (const w of workers.values()) await w.stop();
  await env?.teardown();
});

const service = () => env.client.workflowService;
const id = (prefix: string) => `${prefix}-${randomUUID()}`;
const describeDeployment = () => service().describeWorkerDeployment({ namespace, deploymentName });
const describeVersion = (version: WorkerDeploymentVersion) =>
  service().describeWorkerDeploymentVersion({ namespace, deploymentVersion: version });
const setCurrent = (buildId: string) =>
  service().setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId, identity: 'test' });
const setRamping = (buildId: string, percentage: number) =>
  service().setWorkerDeploymentRampingVersion({ namespace, deploymentName, buildId, percentage, identity: 'test' });
const versioningInfo = async (workflowId: string) =>
  (await env.client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.versioningInfo;
const run = (workflow: typeof pinnedSteps, steps: number, workflowId = id(workflow.name)) =>
  env.client.workflow.start(workflow, { taskQueue, workflowId, args: [steps] });

describe('worker deployment versioning', () => {
  it('creates the deployment and version when a versioned worker polls; unversioned work goes to unversioned workers', async () => {
    await worker('v1', v1);
    await worker('unversioned');
    const listed = await eventually(async () => {
      const { workerDeployments } = await service().listWorkerDeployments({ namespace });
      return workerDeployments?.find((d) => d.name === deploymentName);
    });
    expect(listed.routingConfig?.currentVersion).toBe('__unversioned__');
    const version = await eventually(async () => {
      const info = (await describeVersion(v1)).workerDeploymentVersionInfo;
      return info && (info.taskQueueInfos?.length ?? 0) >= 2 ? info : undefined;
    });
    expect(version.status).toBe(WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_INACTIVE);
    expect(version.version).toBe(`${deploymentName}.1.0`);
    expect(version.taskQueueInfos?.map((q) => [q.name, q.type]).sort()).toEqual(
      [
        [taskQueue, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW],
        [taskQueue, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY],
      ].sort(),
    );
    const { workerDeploymentInfo } = await describeDeployment();
    expect(workerDeploymentInfo?.versionSummaries?.map((v) => v.deploymentVersion?.buildId)).toEqual(['1.0']);

    // DescribeTaskQueue (the UI's workers tab) lists both workers, the versioned one with its version.
    const { pollers } = await service().describeTaskQueue({ namespace, taskQueue: { name: taskQueue } });
    const byIdentity = new Map(pollers?.map((p) => [p.identity, p.deploymentOptions]));
    expect(byIdentity.get('worker-v1')).toMatchObject({ ...v1, workerVersioningMode: 2 });
    expect(byIdentity.has('worker-unversioned')).toBe(true);
    expect(byIdentity.get('worker-unversioned')).toBeFalsy();

    // No current version: the task queue's work is unversioned, and only the unversioned worker takes it.
    const handle = await run(pinnedSteps, 0);
    expect(await handle.result()).toEqual(['unversioned']);
    expect(await versioningInfo(handle.workflowId)).toBeFalsy();
  });

  it('sends new workflows to the current version, and none to unversioned workers', async () => {
    const set = await setCurrent('1.0');
    expect(set.previousVersion).toBe('__unversioned__');
    const results = await Promise.all([0, 1, 2].map(async () => (await run(upgradingSteps, 0)).result()));
    expect(results).toEqual([['v1'], ['v1'], ['v1']]);

    const handle = await run(upgradingSteps, 0);
    await handle.result();
    const info = await versioningInfo(handle.workflowId);
    expect(info?.behavior).toBe(VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE);
    expect(info?.deploymentVersion).toMatchObject(v1);
    // Describe (and List) show the versioning search attributes, as the Web UI reads them.
    const attributes = (await handle.describe()).raw.workflowExecutionInfo?.searchAttributes?.indexedFields ?? {};
    expect(
      Object.fromEntries(
        ['TemporalWorkerDeployment', 'TemporalWorkerDeploymentVersion', 'TemporalWorkflowVersioningBehavior'].map((k) => [
          k,
          defaultPayloadConverter.fromPayload(attributes[k]!),
        ]),
      ),
    ).toEqual({
      TemporalWorkerDeployment: deploymentName,
      TemporalWorkerDeploymentVersion: `${deploymentName}:1.0`,
      TemporalWorkflowVersioningBehavior: 'AutoUpgrade',
    });
    const { events } = await handle.fetchHistory();
    const completed = events?.find((e) => e.workflowTaskCompletedEventAttributes)?.workflowTaskCompletedEventAttributes;
    expect(completed?.deploymentVersion).toMatchObject(v1);
    expect(completed?.versioningBehavior).toBe(VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE);

    const { workerDeploymentInfo } = await describeDeployment();
    expect(workerDeploymentInfo?.routingConfig?.currentDeploymentVersion).toMatchObject(v1);
    expect(workerDeploymentInfo?.versionSummaries?.[0]?.status).toBe(
      WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT,
    );
  });

  it('keeps PINNED workflows on their version and moves AUTO_UPGRADE ones to the new current version', async () => {
    const pinned = await run(pinnedSteps, 1);
    const upgrading = await run(upgradingSteps, 1);
    const hop = await env.client.workflow.start(pinnedHop, { taskQueue, workflowId: id('hop'), args: [1] });
    // Each has run its first workflow task on v1 and waits for its signal.
    for (const h of [pinned, upgrading, hop]) {
      await eventually(async () => (await versioningInfo(h.workflowId))?.deploymentVersion?.buildId === '1.0');
    }
    expect((await versioningInfo(pinned.workflowId))?.behavior).toBe(VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);

    await worker('v2', v2);
    await eventually(async () => (await describeDeployment()).workerDeploymentInfo?.versionSummaries?.length === 2);
    // v2 must poll both of the current version's task queues before it may become current.
    await eventually(async () => ((await describeVersion(v2)).workerDeploymentVersionInfo?.taskQueueInfos?.length ?? 0) >= 2);
    const set = await setCurrent('2.0');
    expect(set.previousDeploymentVersion).toMatchObject(v1);

    // v1 still runs a pinned workflow: draining.
    const draining = (await describeVersion(v1)).workerDeploymentVersionInfo;
    expect(draining?.status).toBe(WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING);
    expect(draining?.drainageInfo?.status).toBe(VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINING);

    await pinned.signal(proceedSignal);
    await upgrading.signal(proceedSignal);
    expect(await pinned.result()).toEqual(['v1', 'v1']);
    // The next run of a pinned run starts on its version.
    await hop.signal(proceedSignal);
    expect(await hop.result()).toBe('v1');
    expect(await upgrading.result()).toEqual(['v1', 'v2']);
    expect((await versioningInfo(pinned.workflowId))?.deploymentVersion).toMatchObject(v1);
    expect((await versioningInfo(upgrading.workflowId))?.deploymentVersion).toMatchObject(v2);

    // Visibility knows each run's version and behavior.
    const pinnedQuery = `TemporalWorkerDeploymentVersion = "${deploymentName}:1.0" AND TemporalWorkflowVersioningBehavior = "Pinned"`;
    const listed = await service().listWorkflowExecutions({ namespace, query: pinnedQuery });
    expect(listed.executions?.map((e) => e.execution?.workflowId)).toContain(pinned.workflowId);
    expect(listed.executions?.map((e) => e.execution?.workflowId)).not.toContain(upgrading.workflowId);
    const onV2 = await service().countWorkflowExecutions({
      namespace,
      query: `TemporalWorkerDeployment = "${deploymentName}" AND TemporalWorkerDeploymentVersion = "${deploymentName}:2.0"`,
    });
    expect(Number(onV2.count)).toBe(1);

    // Nothing open is pinned to v1 any more: drained.
    const drained = (await describeVersion(v1)).workerDeploymentVersionInfo;
    expect(drained?.status).toBe(WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINED);
  });

  it('ramps the given share of new workflows to the ramping version', async () => {
    await setRamping('1.0', 100);
    expect(await (await run(upgradingSteps, 0)).result()).toEqual(['v1']);
    const summary = (await describeDeployment()).workerDeploymentInfo?.versionSummaries?.find(
      (v) => v.deploymentVersion?.buildId === '1.0',
    );
    expect(summary?.status).toBe(WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING);
    const ramp0 = await setRamping('1.0', 0);
    expect(ramp0.previousPercentage).toBe(100);
    expect(await (await run(upgradingSteps, 0)).result()).toEqual(['v2']);
    const unset = await service().setWorkerDeploymentRampingVersion({ namespace, deploymentName, identity: 'test' });
    expect(unset.previousDeploymentVersion).toMatchObject(v1);
    expect((await describeDeployment()).workerDeploymentInfo?.routingConfig?.rampingVersion).toBe('');

    expect(await grpcError(setRamping('2.0', 10))).toEqual({
      code: FAILED_PRECONDITION,
      details: `requested ramping version ${deploymentName}.2.0 is already current`,
    });
    expect((await grpcError(setRamping('1.0', 101))).code).toBe(INVALID_ARGUMENT);
    expect(await grpcError(setCurrent('9.9'))).toEqual({
      code: NOT_FOUND,
      details: `build ID '9.9' not found in Worker Deployment '${deploymentName}'`,
    });
    const stale = Buffer.from('stale');
    expect(
      await grpcError(service().setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId: '1.0', conflictToken: stale })),
    ).toEqual({ code: FAILED_PRECONDITION, details: 'conflict token mismatch' });
  });

  it('pins a workflow by versioning override, at start or with UpdateWorkflowExecutionOptions', async () => {
    const started = await env.client.workflow.start(upgradingSteps, {
      taskQueue,
      workflowId: id('override-at-start'),
      args: [0],
      versioningOverride: { pinnedTo: v1 },
    });
    expect(await started.result()).toEqual(['v1']);
    const startInfo = await versioningInfo(started.workflowId);
    expect(startInfo?.behavior).toBe(VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);
    expect(startInfo?.versioningOverride?.pinned?.version).toMatchObject(v1);

    // A pinned parent's child on the same task queue starts on the parent's version, not the current one.
    const parentRun = await env.client.workflow.start(parentOfUpgrading, {
      taskQueue,
      workflowId: id('pinned-parent'),
      versioningOverride: { pinnedTo: v1 },
    });
    expect(await parentRun.result()).toEqual(['v1']);

    const handle = await run(upgradingSteps, 1);
    await eventually(async () => (await versioningInfo(handle.workflowId))?.deploymentVersion?.buildId === '2.0');
    const updated = await service().updateWorkflowExecutionOptions({
      namespace,
      workflowExecution: { workflowId: handle.workflowId },
      workflowExecutionOptions: { versioningOverride: { pinned: { version: v1, behavior: 1 } } },
      updateMask: { paths: ['versioning_override'] },
      identity: 'operator',
    });
    expect(updated.workflowExecutionOptions?.versioningOverride?.pinned?.version).toMatchObject(v1);
    await handle.signal(proceedSignal);
    expect(await handle.result()).toEqual(['v2', 'v1']);
    const { events } = await handle.fetchHistory();
    expect(eventTypes(events)).toContain('WORKFLOW_EXECUTION_OPTIONS_UPDATED');
    const options = events?.find((e) => e.workflowExecutionOptionsUpdatedEventAttributes)?.workflowExecutionOptionsUpdatedEventAttributes;
    expect(options?.identity).toBe('operator');

    expect(
      (
        await grpcError(
          service().updateWorkflowExecutionOptions({
            namespace,
            workflowExecution: { workflowId: handle.workflowId },
            workflowExecutionOptions: {},
            updateMask: { paths: ['versioning_override'] },
          }),
        )
      ).details,
    ).toBe('workflow execution already completed');
  });

  it('moves a workflow task queued before the routing changed to the version it now targets', async () => {
    const otherDeployment = `deployment-${randomUUID()}`;
    const otherQueue = `versioning-other-${randomUUID()}`;
    const running = await startWorker(env, {
      taskQueue: otherQueue,
      activities: { whoAmI: async () => 'x1' },
      workerDeploymentOptions: {
        version: { deploymentName: otherDeployment, buildId: 'x1' },
        useWorkerVersioning: true,
        defaultVersioningBehavior: 'AUTO_UPGRADE',
      },
    });
    workers.set('x1', running);
    await eventually(async () =>
      service()
        .describeWorkerDeploymentVersion({ namespace, deploymentVersion: { deploymentName: otherDeployment, buildId: 'x1' } })
        .then(
          (v) => (v.workerDeploymentVersionInfo?.taskQueueInfos?.length ?? 0) >= 1,
          () => false,
        ),
    );
    // Unversioned work, and no unversioned worker: the task waits in the queue.
    const handle = await env.client.workflow.start(upgradingSteps, { taskQueue: otherQueue, workflowId: id('queued'), args: [0] });
    expect((await handle.describe()).raw.pendingWorkflowTask?.startedTime).toBeFalsy();
    await service().setWorkerDeploymentCurrentVersion({ namespace, deploymentName: otherDeployment, buildId: 'x1' });
    expect(await handle.result()).toEqual(['x1']);
  });

  it('tells a pinned run when new runs go to another version, and continues as new onto the ramping version (USE_RAMPING_VERSION)', async () => {
    // v2 is current: the run is pinned to it.
    const pinned = await env.client.workflow.start(noticesTarget, { taskQueue, workflowId: id('notices') });
    await pinned.signal(proceedSignal);
    await eventually(async () => (await pinned.query(noticesQuery)).length === 1);
    await setCurrent('1.0');
    await pinned.signal(proceedSignal);
    expect(await pinned.result()).toEqual([false, true]);

    // v1 current, v2 ramping at 0 %: the next run still goes to v2.
    await setRamping('2.0', 0);
    const hop = await env.client.workflow.start(rampHop, { taskQueue, workflowId: id('ramp-hop'), args: [false] });
    await eventually(async () => (await versioningInfo(hop.workflowId))?.deploymentVersion?.buildId === '1.0');
    await hop.signal(proceedSignal);
    expect(await hop.result()).toBe('v2');
    await service().setWorkerDeploymentRampingVersion({ namespace, deploymentName, identity: 'test' });
    await setCurrent('2.0');
  });

  it("sends a versioned run's queries to its version's workers", async () => {
    // A task queue of its own with no unversioned worker: a query sent to unversioned pollers would wait forever.
    const queue = id('versioning-query');
    const version: WorkerDeploymentVersion = { deploymentName: id('deployment'), buildId: '1.0' };
    const versioned = await startWorker(env, {
      taskQueue: queue,
      activities: { whoAmI: async () => 'versioned' },
      workerDeploymentOptions: { version, useWorkerVersioning: true, defaultVersioningBehavior: 'AUTO_UPGRADE' },
    });
    try {
      // NOT_FOUND until the worker's first poll registers the version.
      await eventually(async () => {
        const info = (await describeVersion(version).catch(() => undefined))?.workerDeploymentVersionInfo;
        return (info?.taskQueueInfos?.length ?? 0) >= 2;
      });
      await service().setWorkerDeploymentCurrentVersion({ ...version, namespace, identity: 'test' });
      const handle = await env.client.workflow.start(upgradingSteps, { taskQueue: queue, workflowId: id('query'), args: [1] });
      await eventually(async () => (await handle.query(seenQuery)).length === 1);
      expect(await handle.query(seenQuery)).toEqual(['versioned']);
      await handle.signal(proceedSignal);
      expect(await handle.result()).toEqual(['versioned', 'versioned']);
    } finally {
      await versioned.stop();
    }
  });

  it('deletes versions and deployments only when Temporal allows it', async () => {
    expect(await grpcError(service().deleteWorkerDeploymentVersion({ namespace, deploymentVersion: v2 }))).toEqual({
      code: FAILED_PRECONDITION,
      details: `version '${deploymentName}:2.0' cannot be deleted since it is current or ramping`,
    });
    expect(await grpcError(service().deleteWorkerDeploymentVersion({ namespace, deploymentVersion: v1 }))).toEqual({
      code: FAILED_PRECONDITION,
      details: `version '${deploymentName}:1.0' cannot be deleted since it has active pollers`,
    });
    expect(await grpcError(service().deleteWorkerDeployment({ namespace, deploymentName }))).toEqual({
      code: FAILED_PRECONDITION,
      details: "deployment has versions, can't be deleted",
    });
    // Once its worker has shut down, v1 (drained, neither current nor ramping) can go.
    await workers.get('v1')!.stop();
    workers.delete('v1');
    await service().deleteWorkerDeploymentVersion({ namespace, deploymentVersion: v1 });
    const summaries = (await describeDeployment()).workerDeploymentInfo?.versionSummaries;
    expect(summaries?.map((v) => v.deploymentVersion?.buildId)).toEqual(['2.0']);
    expect(await grpcError(describeVersion(v1))).toEqual({
      code: NOT_FOUND,
      details: `build ID '1.0' not found in Worker Deployment '${deploymentName}'`,
    });
    expect(await grpcError(service().describeWorkerDeployment({ namespace, deploymentName: 'nobody' }))).toEqual({
      code: NOT_FOUND,
      details: "no Worker Deployment found with name 'nobody'; does your Worker Deployment have pollers?",
    });
  });
});
