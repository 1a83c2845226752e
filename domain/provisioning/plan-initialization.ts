import fs from 'node:fs/promises';
import path from 'node:path';
import type { InstanceRecord, PendingMove } from '../db/index.ts';
import { AGENTS_FOLDER, DESCRIPTION_FILE, describeProfile, EXECUTIVE_ROLES, LOG_FOLDER, profileName } from './catalog.ts';
import { DEAD_STATES, instanceRemedy } from './cloud-provider.ts';
import { type CompanyRootPolicy, resolveCompanyRoot } from './company-root.ts';
import type { ProvisioningSettings } from './repository.ts';
import { readFileNoFollow } from './safe-paths.ts';

// What a re-run of initialize would change: the parameter diff against the stored record, and
// per instance, folder and profile what its steps would do. Read-only (stat and read only), so
// the dry run and the 409 answer show exactly what the run would then do.

export interface ParameterChange {
  field: string;
  stored: string;
  requested: string;
}

/** Fields whose change moves or replaces things: never applied without `apply`. Names are applied freely (descriptions are refreshed). */
export const STRUCTURAL_FIELDS = [
  'companyKey',
  'rootPath',
  'cloud.profile',
  'cloud.accountId',
  'cloud.region',
  'cloud.instanceName',
] as const;
/** What `apply: "move"` can carry out: the tree moves and the profiles are renamed; the instance stays. */
export const MOVABLE_FIELDS: readonly string[] = ['companyKey', 'rootPath'];

interface Stored {
  company_key: string;
  name_en: string;
  name_zh: string;
  root_path: string;
  cloud: ProvisioningSettings['cloud'];
}

function flatten(s: ProvisioningSettings): Record<string, string> {
  return {
    companyKey: s.companyKey,
    nameEn: s.nameEn,
    nameZh: s.nameZh,
    rootPath: s.rootPath,
    'cloud.profile': s.cloud.profile,
    'cloud.accountId': s.cloud.accountId,
    'cloud.region': s.cloud.region,
    'cloud.instanceName': s.cloud.instanceName,
  };
}

export const settingsOf = (r: Stored): ProvisioningSettings => ({
  companyKey: r.company_key,
  nameEn: r.name_en,
  nameZh: r.name_zh,
  rootPath: r.root_path,
  cloud: r.cloud,
});

/** Every field whose requested value differs from the stored one, in a fixed order. */
export function parameterChanges(stored: ProvisioningSettings, requested: ProvisioningSettings): ParameterChange[] {
  const before = flatten(stored);
  const after = flatten(requested);
  return Object.keys(after)
    .filter((field) => before[field] !== after[field])
    .map((field) => ({ field, stored: before[field] as string, requested: after[field] as string }));
}

export type PlannedAction = 'create' | 'reuse' | 'move' | 'refresh' | 'blocked';

export interface PlannedStep {
  step: 'move' | 'cloud-instance' | 'folders' | 'agent-profiles';
  target: string;
  action: PlannedAction;
  path?: string;
  from?: string;
  reason?: string;
}

const realRoot = async (policy: CompanyRootPolicy, rootPath: string) => {
  const { existing, missing } = await resolveCompanyRoot(policy, rootPath);
  return path.join(existing, ...missing);
};

/** Whether something is at `file` (a final symlink is not followed; the folders step refuses it). */
const exists = (file: string) =>
  fs.lstat(file).then(
    () => true,
    () => false,
  );

/**
 * The instance as the run would find it (as last recorded): a replacement asked for is created, a
 * dead instance stops the run (with the remedy), any other is reused.
 */
function instancePlan(cellId: string, instance: InstanceRecord | null, replaced: readonly { instanceId: string }[]): PlannedStep {
  if (!instance) return { step: 'cloud-instance', target: 'instance', action: 'create' };
  if (replaced.some((r) => r.instanceId === instance.instanceId)) {
    return { step: 'cloud-instance', target: `instance (replaces ${instance.instanceId})`, action: 'create' };
  }
  const target = `instance ${instance.instanceId}`;
  return DEAD_STATES.has(instance.state)
    ? {
        step: 'cloud-instance',
        target,
        action: 'blocked',
        reason: `${instance.instanceId} is ${instance.state}. ${instanceRemedy(cellId, instance.state)}`,
      }
    : { step: 'cloud-instance', target, action: 'reuse' };
}

/**
 * The step plan of a run with `settings` (already stored or about to be), given what is recorded
 * (`instance`) and a move still to do. A file that cannot be read safely (a symlink in its place)
 * is `blocked`: the run would stop there with that reason.
 */
export async function planSteps(
  policy: CompanyRootPolicy,
  settings: ProvisioningSettings & { cellId: string },
  instance: InstanceRecord | null,
  move: PendingMove | null,
  replaced: readonly { instanceId: string }[] = [],
): Promise<PlannedStep[]> {
  const root = await realRoot(policy, settings.rootPath);
  const fromRoot = move && move.fromRoot !== move.toRoot ? await realRoot(policy, move.fromRoot).catch(() => move.fromRoot) : null;
  const steps: PlannedStep[] = [];
  if (fromRoot) steps.push({ step: 'move', target: 'root', action: 'move', from: fromRoot, path: root });
  steps.push(instancePlan(settings.cellId, instance, replaced));
  // Before the move, what exists lies under the old root.
  const current = fromRoot ?? root;
  for (const { folder } of EXECUTIVE_ROLES) {
    const target = path.join(root, folder);
    const found = await exists(path.join(current, folder));
    steps.push({
      step: 'folders',
      target: folder,
      path: target,
      ...(found ? (fromRoot ? { action: 'move', from: path.join(current, folder) } : { action: 'reuse' }) : { action: 'create' }),
    });
  }
  for (const { folder, role, duties } of EXECUTIVE_ROLES) {
    const name = profileName(settings.companyKey, role);
    const profilePath = path.join(root, AGENTS_FOLDER, name);
    const oldPath = path.join(current, AGENTS_FOLDER, move ? profileName(move.fromKey, role) : name);
    const text = describeProfile({
      name,
      nameEn: settings.nameEn,
      nameZh: settings.nameZh,
      companyKey: settings.companyKey,
      cellId: settings.cellId,
      duties,
      folderPath: path.join(root, folder),
      profilePath,
      logPath: path.join(profilePath, LOG_FOLDER),
    });
    const base = { step: 'agent-profiles' as const, target: name, path: profilePath };
    try {
      const existing = await readFileNoFollow(path.join(oldPath, DESCRIPTION_FILE));
      if (!existing) steps.push({ ...base, action: 'create' });
      else if (oldPath !== profilePath) steps.push({ ...base, action: 'move', from: oldPath });
      else steps.push({ ...base, action: existing.toString('utf8') === text ? 'reuse' : 'refresh' });
    } catch (err) {
      steps.push({ ...base, action: 'blocked', reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return steps;
}
