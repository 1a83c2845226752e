import { findCompany } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { type CloudProvider, instanceRemedy } from './cloud-provider.ts';
import type { CompanyRootPolicy } from './company-root.ts';
import { detectDrift } from './detect-drift.ts';
import { detectInstanceDrift } from './detect-instance-drift.ts';
import { redactForbidden } from './forbidden-data.ts';
import type { LiveRun, LiveRunObserver } from './live-runs.ts';
import { findProvisioning } from './repository.ts';

const RUNS_SHOWN = 20;

/**
 * F5: the stored record (server, folders, profiles, runs with their steps) combined with what
 * Temporal says of runs still going (current step, attempt and last failure of a retried step).
 * Without a live observer (an API process without Temporal) the stored record alone answers.
 * With the root policy, the disk is compared with the record (drift); without it drift is null.
 * With a cloud provider, the recorded instance is compared with the provider's (instance drift),
 * and the remedy follows the state the provider reports.
 */
export async function getProvisioningStatus(
  db: DbOrTrx,
  live: LiveRunObserver | undefined,
  cellId: string,
  companyRoot?: CompanyRootPolicy,
  cloud?: CloudProvider,
) {
  const company = await findCompany(db, cellId);
  const record = await findProvisioning(db, company.id);
  const [runs, waiting, folders, profiles] = await Promise.all([
    db
      .selectFrom('provisioning_runs')
      .selectAll()
      .where('company_id', '=', company.id)
      .orderBy('started_at', 'desc')
      .limit(RUNS_SHOWN)
      .execute(),
    db
      .selectFrom('provisioning_requests')
      .select(['id', 'part', 'workflow_id', 'requested_at'])
      .where('company_id', '=', company.id)
      .where('run_id', 'is', null)
      .orderBy('requested_at')
      .execute(),
    db.selectFrom('company_folders').selectAll().where('company_id', '=', company.id).orderBy('name').execute(),
    db.selectFrom('agent_profiles').selectAll().where('company_id', '=', company.id).orderBy('name').execute(),
  ]);

  const liveOf = new Map<string, LiveRun>();
  if (live) {
    const observed = await Promise.all(runs.filter((r) => r.status === 'running').map((r) => live.observe(r.workflow_id, r.run_id)));
    for (const l of observed) if (l) liveOf.set(l.runId, l);
  }

  const runViews = runs.map((r) => {
    const l = liveOf.get(r.run_id);
    const steps = r.steps.map((s) => {
      const pending = l?.pendingStep?.name === s.name ? l.pendingStep : null;
      return pending
        ? {
            ...s,
            attempts: Math.max(s.attempts, pending.attempt),
            lastError: pending.lastFailure ? redactForbidden(pending.lastFailure) : s.lastError,
          }
        : s;
    });
    const stillGoing = r.status === 'running' && (!l || l.status === 'RUNNING');
    const current = steps.findLast((s) => s.status === 'running' || s.status === 'retrying');
    return {
      workflowId: r.workflow_id,
      runId: r.run_id,
      part: r.part,
      status: stillGoing ? ('running' as const) : r.status === 'running' ? ('failed' as const) : r.status,
      currentStep: stillGoing ? (l?.currentStep ?? current?.name ?? null) : null,
      steps,
      error: r.error ?? (stillGoing || r.status !== 'running' ? null : `the workflow ended as ${l?.status}`),
      startedAt: r.started_at.toISOString(),
      finishedAt: r.finished_at?.toISOString() ?? null,
    };
  });

  const [disk, instanceDrift] = await Promise.all([
    record && companyRoot ? detectDrift(companyRoot, record.root_path, folders, profiles) : null,
    record && cloud ? detectInstanceDrift(cloud, { ...record, cell_id: company.cell_id }) : null,
  ]);
  const drift = disk && {
    ...disk,
    count: disk.count + (instanceDrift?.entries.length ?? 0),
    entries: [...disk.entries, ...(instanceDrift?.entries ?? [])],
    instance: instanceDrift && { checked: instanceDrift.checked, state: instanceDrift.state, error: instanceDrift.error },
  };
  const latest = runViews[0];
  const running = runViews.find((r) => r.status === 'running');
  const failing = (running ?? latest)?.steps.findLast((s) => s.lastError && s.status !== 'completed');
  return {
    cellId: company.cell_id,
    status: !record
      ? ('not_started' as const)
      : running
        ? ('running' as const)
        : waiting.length
          ? ('queued' as const)
          : (latest?.status ?? ('queued' as const)),
    currentStep: running?.currentStep ?? null,
    failingStep: failing ? { name: failing.name, attempts: failing.attempts, lastError: failing.lastError } : null,
    company: record
      ? {
          companyKey: record.company_key,
          nameEn: record.name_en,
          nameZh: record.name_zh,
          rootPath: record.root_path,
          cloud: record.cloud,
          pendingMove: record.pending_move,
        }
      : null,
    server: record?.instance
      ? {
          ...record.instance,
          syncedAt: record.instance_synced_at?.toISOString() ?? null,
          generation: record.instance_generation,
          replaced: record.replaced_instances,
          // A replacement already asked for needs nothing more than its run.
          remedy: record.replaced_instances.some((r) => r.instanceId === record.instance?.instanceId)
            ? null
            : instanceRemedy(company.cell_id, instanceDrift?.state ?? record.instance.state),
        }
      : null,
    folders: folders.map((f) => ({ name: f.name, path: f.path, updatedAt: f.updated_at.toISOString() })),
    agentProfiles: profiles.map((p) => ({
      name: p.name,
      role: p.role,
      rid: p.rid,
      folderPath: p.folder_path,
      profilePath: p.profile_path,
      descriptionPath: p.description_path,
      descriptionSha256: p.description_sha256,
      updatedAt: p.updated_at.toISOString(),
    })),
    queued: waiting.map((w) => ({ requestId: w.id, part: w.part, workflowId: w.workflow_id, requestedAt: w.requested_at.toISOString() })),
    runs: runViews,
    drift,
  };
}

export type ProvisioningStatus = Awaited<ReturnType<typeof getProvisioningStatus>>;
