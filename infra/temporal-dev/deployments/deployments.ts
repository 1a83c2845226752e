// Worker deployment versioning, as Temporal's worker deployment workflows and matching do it:
// a versioned worker's poll registers its version and task queue in the deployment (both created
// on first sight); each deployment has a routing config (current version, ramping version and
// percentage); a task goes to the queue of the version it targets (workflow.ts decides which),
// and only pollers of that version (or unversioned pollers for unversioned work) receive it.
// One `Deployments` per namespace (`ns.deployments`); its state is plain JSON in the namespace's
// snapshot, so the state file keeps it.
import { createHash } from 'node:crypto';
import { DrainageStatus, TaskQueueType, VersioningBehavior, VersionStatus } from '../common/enums.ts';
import { failedPrecondition, invalidArgument, notFound, requireField } from '../common/errors.ts';
import type { Msg } from '../common/proto.ts';
import { msToProto } from '../common/time.ts';
import {
  messageForm,
  parseVersionString,
  sameVersion,
  type VersionRef,
  validateVersioningOverride,
  versionFromMessage,
  versionString,
  workerVersion,
} from '../common/worker-versioning.ts';
import type { Execution, TaskRouting } from '../history/workflow-execution.ts';
import type { StartsHost } from '../history/workflow-starts.ts';

interface VersionRecord {
  buildId: string;
  createTime: number;
  /** Task queues (name and TaskQueueType) whose workers of this version have polled. */
  taskQueues: Array<{ name: string; type: number }>;
  currentSinceTime?: number;
  rampingSinceTime?: number;
  routingUpdateTime?: number;
  firstActivationTime?: number;
  lastCurrentTime?: number;
  lastDeactivationTime?: number;
}

interface DeploymentRecord {
  name: string;
  createTime: number;
  versions: VersionRecord[];
  /** Build id of the current version; unset: unversioned. */
  current?: string;
  currentChangedTime?: number;
  /** Build id of the ramping version ('' ramps to unversioned); unset: nothing ramps. */
  ramping?: string;
  rampingPercentage: number;
  rampingChangedTime?: number;
  rampingPercentageChangedTime?: number;
  /** Bumped by every routing change; the conflict token is its decimal string. */
  revision: number;
  lastModifierIdentity: string;
}

export interface DeploymentsState {
  deployments: DeploymentRecord[];
}

/** Where a workflow's ramp decision falls, in [0, 100): stable per workflow id, as Temporal hashes it. */
function rampPoint(workflowId: string): number {
  return (createHash('sha256').update(workflowId).digest().readUInt32BE(0) / 2 ** 32) * 100;
}

/** What deployments need of their namespace (namespace/registry.ts implements it): its clock, task queues and open runs. */
export interface DeploymentsHost extends Pick<StartsHost, 'clock' | 'workflowTasks' | 'activityTasks' | 'queueKey'> {
  /** Runs still open, which a routing change reroutes. */
  readonly open: Iterable<Execution>;
  /** Marks the namespace's state (deployments are part of it) as changed. */
  touch(): void;
}

export class Deployments implements TaskRouting {
  private readonly ns: DeploymentsHost;
  private state: DeploymentsState = { deployments: [] };

  constructor(ns: DeploymentsHost) {
    this.ns = ns;
  }

  importState(state: DeploymentsState): void {
    this.state = structuredClone(state);
  }

  exportState(): DeploymentsState {
    return structuredClone(this.state);
  }

  private get now(): number {
    return this.ns.clock.now();
  }

  private find(name: string): DeploymentRecord | undefined {
    return this.state.deployments.find((d) => d.name === name);
  }

  private deployment(name: string | undefined): DeploymentRecord {
    const d = this.find(requireField(name, 'DeploymentName'));
    if (!d) throw notFound(`no Worker Deployment found with name '${name}'; does your Worker Deployment have pollers?`);
    return d;
  }

  private version(ref: VersionRef): { deployment: DeploymentRecord; version: VersionRecord } {
    const deployment = this.find(ref.deploymentName);
    const version = deployment?.versions.find((v) => v.buildId === ref.buildId);
    if (!deployment || !version) throw notFound(`build ID '${ref.buildId}' not found in Worker Deployment '${ref.deploymentName}'`);
    return { deployment, version };
  }

  /** The task-queue key a task for `version` (undefined: unversioned) is queued under. */
  queueKey(taskQueue: string, version: VersionRef | undefined): string {
    const base = this.ns.queueKey(taskQueue);
    return version ? `${base}\u0000${version.deploymentName}\u0000${version.buildId}` : base;
  }

  /**
   * The key a poll of `taskQueue` waits on. A versioned worker's poll registers its version and
   * the task queue in the deployment first, as Temporal's matching does.
   */
  pollKey(taskQueue: string, type: number, deploymentOptions: Msg | undefined): string {
    const version = workerVersion(deploymentOptions);
    if (version) this.register(version, taskQueue, type);
    return this.queueKey(taskQueue, version);
  }

  private register(ref: VersionRef, taskQueue: string, type: number): void {
    let deployment = this.find(ref.deploymentName);
    if (!deployment) {
      deployment = {
        name: ref.deploymentName,
        createTime: this.now,
        versions: [],
        rampingPercentage: 0,
        revision: 0,
        lastModifierIdentity: '',
      };
      this.state.deployments.push(deployment);
      this.ns.touch();
    }
    let version = deployment.versions.find((v) => v.buildId === ref.buildId);
    if (!version) {
      version = { buildId: ref.buildId, createTime: this.now, taskQueues: [] };
      deployment.versions.push(version);
      this.ns.touch();
    }
    if (!version.taskQueues.some((q) => q.name === taskQueue && q.type === type)) {
      version.taskQueues.push({ name: taskQueue, type });
      this.ns.touch();
    }
  }

  /** The versions whose workers have polled `taskQueue` for tasks of `type`. */
  versionsPolling(taskQueue: string, type: number): VersionRef[] {
    return this.state.deployments.flatMap((d) =>
      d.versions
        .filter((v) => v.taskQueues.some((q) => q.name === taskQueue && q.type === type))
        .map((v) => ({ deploymentName: d.name, buildId: v.buildId })),
    );
  }

  /** Whether `version` has workers polling `taskQueue` for tasks of `type`. */
  hasQueue(version: VersionRef, taskQueue: string, type: number): boolean {
    const v = this.find(version.deploymentName)?.versions.find((x) => x.buildId === version.buildId);
    return v?.taskQueues.some((q) => q.name === taskQueue && q.type === type) ?? false;
  }

  /**
   * Where new (or auto-upgrading) work on `taskQueue` goes: the ramping version for the share of
   * workflow ids within the ramp percentage (all with `useRamping`), else the current version;
   * undefined is unversioned.
   * A task queue belongs to the deployment whose versions polled it.
   */
  route(taskQueue: string, type: number, workflowId: string, useRamping = false): VersionRef | undefined {
    const deployment = this.state.deployments.find((d) =>
      d.versions.some((v) => v.taskQueues.some((q) => q.name === taskQueue && q.type === type)),
    );
    if (!deployment) return undefined;
    const at = (buildId: string | undefined) => (buildId ? { deploymentName: deployment.name, buildId } : undefined);
    if (deployment.ramping !== undefined && (useRamping || rampPoint(workflowId) < deployment.rampingPercentage))
      return at(deployment.ramping);
    return at(deployment.current);
  }

  // ---- RPCs ----

  describeDeployment(req: Msg): Msg {
    const d = this.deployment(req.deploymentName);
    return { conflictToken: this.conflictToken(d), workerDeploymentInfo: this.deploymentInfo(d) };
  }

  listDeployments(req: Msg): Msg {
    const pageSize: number = req.pageSize > 0 ? req.pageSize : 1000;
    const start = req.nextPageToken?.length ? Number(Buffer.from(req.nextPageToken).toString('utf8')) : 0;
    if (!Number.isInteger(start) || start < 0) throw invalidArgument('Invalid NextPageToken.');
    const page = this.state.deployments.slice(start, start + pageSize);
    const next = start + page.length;
    return {
      workerDeployments: page.map((d) => {
        const summary = (buildId: string | undefined) => {
          const v = buildId ? d.versions.find((x) => x.buildId === buildId) : undefined;
          return v && this.versionSummary(d, v);
        };
        return {
          name: d.name,
          createTime: msToProto(d.createTime),
          routingConfig: this.routingConfig(d),
          latestVersionSummary: summary(d.versions.at(-1)?.buildId),
          currentVersionSummary: summary(d.current),
          rampingVersionSummary: summary(d.ramping),
        };
      }),
      nextPageToken: next < this.state.deployments.length ? Buffer.from(String(next)) : undefined,
    };
  }

  describeVersion(req: Msg): Msg {
    const ref = this.requestedVersion(req);
    if (!ref) throw invalidArgument('deployment version is not set on request.');
    const { deployment, version } = this.version(ref);
    const status = this.status(deployment, version);
    return {
      workerDeploymentVersionInfo: {
        version: versionString(ref),
        status,
        deploymentVersion: ref,
        deploymentName: deployment.name,
        createTime: msToProto(version.createTime),
        routingChangedTime: optionalTime(version.routingUpdateTime),
        currentSinceTime: optionalTime(version.currentSinceTime),
        rampingSinceTime: optionalTime(version.rampingSinceTime),
        firstActivationTime: optionalTime(version.firstActivationTime),
        lastCurrentTime: optionalTime(version.lastCurrentTime),
        lastDeactivationTime: optionalTime(version.lastDeactivationTime),
        rampPercentage: deployment.ramping === version.buildId ? deployment.rampingPercentage : 0,
        taskQueueInfos: version.taskQueues.map((q) => ({ name: q.name, type: q.type })),
        drainageInfo: this.drainageInfo(deployment, version),
      },
      versionTaskQueues: version.taskQueues.map((q) => ({ name: q.name, type: q.type })),
    };
  }

  setCurrent(req: Msg): Msg {
    const d = this.deployment(req.deploymentName);
    const target = this.targetOf(req, d);
    this.checkConflictToken(d, req);
    const previous = d.current;
    const response = () => ({
      conflictToken: this.conflictToken(d),
      previousVersion: versionString(this.ref(d, previous)),
      previousDeploymentVersion: this.ref(d, previous),
    });
    if (previous === target) return response();
    if (target !== undefined) {
      const { version } = this.version({ deploymentName: d.name, buildId: target });
      if (!req.ignoreMissingTaskQueues && previous !== undefined) this.checkTaskQueues(d, previous, version, 'current');
    }
    const now = this.now;
    this.deactivate(d, previous, now);
    d.current = target;
    d.currentChangedTime = now;
    if (target !== undefined && d.ramping === target) {
      d.ramping = undefined;
      d.rampingPercentage = 0;
      d.rampingChangedTime = now;
      d.rampingPercentageChangedTime = now;
    }
    const v = this.versionRecord(d, target);
    if (v) {
      v.currentSinceTime = now;
      v.rampingSinceTime = undefined;
      v.routingUpdateTime = now;
      v.firstActivationTime ??= now;
      v.lastCurrentTime = now;
    }
    this.changed(d, req.identity);
    return response();
  }

  setRamping(req: Msg): Msg {
    const d = this.deployment(req.deploymentName);
    const percentage: number = req.percentage ?? 0;
    if (!(percentage >= 0 && percentage <= 100)) throw invalidArgument('Percentage must be between 0 and 100 (inclusive)');
    // An empty version (and build id) removes the ramp; UNVERSIONED ramps to unversioned workers.
    const unset = !req.buildId && !req.version;
    const target = unset ? undefined : (this.targetOf(req, d) ?? '');
    this.checkConflictToken(d, req);
    const previous = d.ramping;
    const previousPercentage = d.rampingPercentage;
    const response = () => ({
      conflictToken: this.conflictToken(d),
      previousVersion: previous === undefined ? '' : versionString(this.ref(d, previous)),
      previousDeploymentVersion: this.ref(d, previous),
      previousPercentage,
    });
    if (previous === target && (unset || previousPercentage === percentage)) return response();
    if (target !== undefined && target === (d.current ?? '')) {
      throw failedPrecondition(`requested ramping version ${versionString(this.ref(d, target))} is already current`);
    }
    const now = this.now;
    if (target) {
      const { version } = this.version({ deploymentName: d.name, buildId: target });
      if (previous !== target && !req.ignoreMissingTaskQueues && d.current !== undefined)
        this.checkTaskQueues(d, d.current, version, 'ramping');
    }
    if (previous !== target) {
      this.deactivate(d, previous, now);
      d.rampingChangedTime = now;
      const v = this.versionRecord(d, target);
      if (v) {
        v.rampingSinceTime = now;
        v.routingUpdateTime = now;
        v.firstActivationTime ??= now;
      }
    }
    d.ramping = target;
    d.rampingPercentage = unset ? 0 : percentage;
    d.rampingPercentageChangedTime = now;
    this.changed(d, req.identity);
    return response();
  }

  deleteVersion(req: Msg): Msg {
    const ref = this.requestedVersion(req);
    if (!ref) throw invalidArgument('deployment version is not set on request.');
    const { deployment, version } = this.version(ref);
    if (deployment.current === ref.buildId || deployment.ramping === ref.buildId) {
      throw failedPrecondition(`version '${messageForm(ref)}' cannot be deleted since it is current or ramping`);
    }
    if (!req.skipDrainage && this.status(deployment, version) === VersionStatus.DRAINING) {
      throw failedPrecondition(`version '${messageForm(ref)}' cannot be deleted since it is draining`);
    }
    if (this.hasPollers(ref, version))
      throw failedPrecondition(`version '${messageForm(ref)}' cannot be deleted since it has active pollers`);
    deployment.versions.splice(deployment.versions.indexOf(version), 1);
    deployment.lastModifierIdentity = req.identity ?? '';
    this.ns.touch();
    return {};
  }

  deleteDeployment(req: Msg): Msg {
    const d = this.deployment(req.deploymentName);
    if (d.versions.length > 0) throw failedPrecondition("deployment has versions, can't be deleted");
    this.state.deployments.splice(this.state.deployments.indexOf(d), 1);
    this.ns.touch();
    return {};
  }

  // ---- helpers ----

  /** The build id a Set* request names (`buildId`, or the deprecated `version` string); undefined: unversioned. */
  private targetOf(req: Msg, d: DeploymentRecord): string | undefined {
    if (req.buildId) return req.buildId;
    const parsed = parseVersionString(req.version);
    if (parsed && parsed.deploymentName !== d.name) {
      throw invalidArgument(`invalid version string '${req.version}' does not match deployment name '${d.name}'`);
    }
    return parsed?.buildId;
  }

  private requestedVersion(req: Msg): VersionRef | undefined {
    return versionFromMessage(req.deploymentVersion) ?? parseVersionString(req.version);
  }

  private ref(d: DeploymentRecord, buildId: string | undefined): VersionRef | undefined {
    return buildId ? { deploymentName: d.name, buildId } : undefined;
  }

  private versionRecord(d: DeploymentRecord, buildId: string | undefined): VersionRecord | undefined {
    return buildId ? d.versions.find((v) => v.buildId === buildId) : undefined;
  }

  private checkConflictToken(d: DeploymentRecord, req: Msg): void {
    if (req.conflictToken?.length && Buffer.from(req.conflictToken).toString('utf8') !== String(d.revision)) {
      throw failedPrecondition('conflict token mismatch');
    }
  }

  private conflictToken(d: DeploymentRecord): Buffer {
    return Buffer.from(String(d.revision));
  }

  /** A new current or ramping version must poll every task queue the current version polls. */
  private checkTaskQueues(d: DeploymentRecord, currentBuildId: string, proposed: VersionRecord, role: 'current' | 'ramping'): void {
    const current = this.versionRecord(d, currentBuildId);
    const missing = current?.taskQueues.some((q) => !proposed.taskQueues.some((p) => p.name === q.name && p.type === q.type));
    if (missing) {
      throw failedPrecondition(
        `proposed ${role} version '${messageForm({ deploymentName: d.name, buildId: proposed.buildId })}' is missing active task queues from the current version; these would become unversioned if it is set as the ${role} version`,
      );
    }
  }

  /** A version that stops being current or ramping starts draining. */
  private deactivate(d: DeploymentRecord, buildId: string | undefined, now: number): void {
    const v = this.versionRecord(d, buildId);
    if (!v) return;
    v.lastDeactivationTime = now;
    v.currentSinceTime = undefined;
    v.rampingSinceTime = undefined;
    v.routingUpdateTime = now;
  }

  /** Records a routing change and sends the tasks waiting on the old routing where the new one says. */
  private changed(d: DeploymentRecord, identity: string | undefined): void {
    d.revision++;
    d.lastModifierIdentity = identity ?? '';
    this.ns.touch();
    for (const exec of this.ns.open) exec.reroute();
  }

  private status(d: DeploymentRecord, v: VersionRecord): number {
    if (d.current === v.buildId) return VersionStatus.CURRENT;
    if (d.ramping === v.buildId) return VersionStatus.RAMPING;
    if (v.lastDeactivationTime === undefined) return VersionStatus.INACTIVE;
    return this.hasPinnedRuns({ deploymentName: d.name, buildId: v.buildId }) ? VersionStatus.DRAINING : VersionStatus.DRAINED;
  }

  /** Drainage, computed when asked from the open runs pinned to the version (Temporal checks periodically). */
  private drainageInfo(d: DeploymentRecord, v: VersionRecord): Msg | undefined {
    const status = this.status(d, v);
    if (status !== VersionStatus.DRAINING && status !== VersionStatus.DRAINED) return undefined;
    return {
      status: status === VersionStatus.DRAINING ? DrainageStatus.DRAINING : DrainageStatus.DRAINED,
      lastChangedTime: optionalTime(v.lastDeactivationTime),
      lastCheckedTime: msToProto(this.now),
    };
  }

  private hasPinnedRuns(ref: VersionRef): boolean {
    for (const exec of this.ns.open) if (exec.behavior === VersioningBehavior.PINNED && sameVersion(exec.pinnedVersion, ref)) return true;
    return false;
  }

  private hasPollers(ref: VersionRef, v: VersionRecord): boolean {
    return v.taskQueues.some((q) => {
      const tasks = q.type === TaskQueueType.ACTIVITY ? this.ns.activityTasks : this.ns.workflowTasks;
      return tasks.recentPollers(this.queueKey(q.name, ref)).length > 0;
    });
  }

  private versionSummary(d: DeploymentRecord, v: VersionRecord): Msg {
    const ref = { deploymentName: d.name, buildId: v.buildId };
    const drainage = this.drainageInfo(d, v);
    return {
      version: versionString(ref),
      status: this.status(d, v),
      deploymentVersion: ref,
      createTime: msToProto(v.createTime),
      drainageStatus: drainage?.status,
      drainageInfo: drainage,
      currentSinceTime: optionalTime(v.currentSinceTime),
      rampingSinceTime: optionalTime(v.rampingSinceTime),
      routingUpdateTime: optionalTime(v.routingUpdateTime),
      firstActivationTime: optionalTime(v.firstActivationTime),
      lastCurrentTime: optionalTime(v.lastCurrentTime),
      lastDeactivationTime: optionalTime(v.lastDeactivationTime),
    };
  }

  private routingConfig(d: DeploymentRecord): Msg {
    const current = this.ref(d, d.current);
    const ramping = this.ref(d, d.ramping);
    return {
      currentDeploymentVersion: current,
      currentVersion: versionString(current),
      rampingDeploymentVersion: ramping,
      rampingVersion: d.ramping === undefined ? '' : versionString(ramping),
      rampingVersionPercentage: d.rampingPercentage,
      currentVersionChangedTime: optionalTime(d.currentChangedTime),
      rampingVersionChangedTime: optionalTime(d.rampingChangedTime),
      rampingVersionPercentageChangedTime: optionalTime(d.rampingPercentageChangedTime),
      revisionNumber: d.revision,
    };
  }

  private deploymentInfo(d: DeploymentRecord): Msg {
    return {
      name: d.name,
      createTime: msToProto(d.createTime),
      versionSummaries: d.versions.map((v) => this.versionSummary(d, v)),
      routingConfig: this.routingConfig(d),
      lastModifierIdentity: d.lastModifierIdentity,
    };
  }
}

function optionalTime(ms: number | undefined): Msg | undefined {
  return ms === undefined ? undefined : msToProto(ms);
}

/**
 * UpdateWorkflowExecutionOptions: the `versioning_override` path of the update mask sets (or,
 * left empty, clears) the run's override. Answers the run's options after the update.
 */
export function updateWorkflowExecutionOptions(ns: Pick<StartsHost, 'get'>, req: Msg): Msg {
  const paths: string[] = req.updateMask?.paths ?? [];
  if (paths.length === 0) throw invalidArgument('UpdateMask is required');
  const unknown = paths.find((p) => p !== 'versioning_override' && p !== 'versioningOverride');
  if (unknown) throw invalidArgument(`error parsing UpdateMask: path ${unknown} not supported`);
  const override = req.workflowExecutionOptions?.versioningOverride ?? undefined;
  validateVersioningOverride(override);
  const exec = ns.get(req.workflowExecution);
  if (!exec.isOpen) throw notFound('workflow execution already completed');
  exec.setVersioningOverride(override, req.identity ?? '');
  return { workflowExecutionOptions: { versioningOverride: exec.versioning.override } };
}
