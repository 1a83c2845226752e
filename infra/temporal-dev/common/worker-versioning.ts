// Worker versioning's vocabulary (Temporal's common/worker_versioning): version references, their
// string forms, and the versioning overrides of starts and option updates. Runs use it as much as
// the deployments that route them (deployments/deployments.ts).
import { VersioningBehavior, WorkerVersioningMode } from './enums.ts';
import { invalidArgument } from './errors.ts';
import type { Msg } from './proto.ts';

export interface VersionRef {
  deploymentName: string;
  buildId: string;
}

/** Temporal's name for "no version" in the deprecated string fields. */
export const UNVERSIONED = '__unversioned__';

export function sameVersion(a: VersionRef | undefined, b: VersionRef | undefined): boolean {
  return a?.deploymentName === b?.deploymentName && a?.buildId === b?.buildId;
}

/** The deprecated string form ("name.buildId", Temporal's v0.31 format) of a version. */
export function versionString(v: VersionRef | undefined): string {
  return v ? `${v.deploymentName}.${v.buildId}` : UNVERSIONED;
}

/** The form Temporal's error messages use ("name:buildId"). */
export const messageForm = (v: VersionRef) => `${v.deploymentName}:${v.buildId}`;

/** Reads a "name.buildId" string (the deprecated `version` fields); UNVERSIONED and '' are undefined. */
export function parseVersionString(s: string | undefined): VersionRef | undefined {
  if (!s || s === UNVERSIONED) return undefined;
  const dot = s.indexOf('.');
  if (dot <= 0 || dot === s.length - 1) {
    throw invalidArgument(`invalid version string ${JSON.stringify(s)}, expected format is "<deployment_name>.<build_id>"`);
  }
  return { deploymentName: s.slice(0, dot), buildId: s.slice(dot + 1) };
}

/** The worker's version from a poll's or completion's `deploymentOptions`, if it runs versioned. */
export function workerVersion(options: Msg | undefined): VersionRef | undefined {
  if (options?.workerVersioningMode !== WorkerVersioningMode.VERSIONED || !options.deploymentName || !options.buildId) return undefined;
  return { deploymentName: options.deploymentName, buildId: options.buildId };
}

/** WorkerDeploymentVersion messages (and legacy Deployment ones) as a VersionRef. */
export function versionFromMessage(v: Msg | undefined): VersionRef | undefined {
  if (!v) return undefined;
  const deploymentName = v.deploymentName ?? v.seriesName;
  return deploymentName && v.buildId ? { deploymentName, buildId: v.buildId } : undefined;
}

/** Temporal's checks of a VersioningOverride (on start and in UpdateWorkflowExecutionOptions). */
export function validateVersioningOverride(override: Msg | undefined): void {
  if (!override) return;
  const pinned = override.pinned ?? (override.behavior === VersioningBehavior.PINNED ? {} : undefined);
  if (pinned && !override.autoUpgrade) {
    if (!versionFromMessage(pinned.version) && !override.pinnedVersion && !versionFromMessage(override.deployment)) {
      throw invalidArgument('must provide version if override is pinned.');
    }
    return;
  }
  if (!override.autoUpgrade && override.behavior !== VersioningBehavior.AUTO_UPGRADE) {
    throw invalidArgument('override behavior is required');
  }
}

/** The version a pinned override names (PinnedOverride.version, else the deprecated fields). */
export function overridePinnedVersion(override: Msg | undefined): VersionRef | undefined {
  if (!override || override.autoUpgrade || override.behavior === VersioningBehavior.AUTO_UPGRADE) return undefined;
  return (
    versionFromMessage(override.pinned?.version) ?? versionFromMessage(override.deployment) ?? parseVersionString(override.pinnedVersion)
  );
}
