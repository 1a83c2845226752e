import { table } from '../../util/output.ts';

// The control plane's answers as `svc admin companies` shows them (api/provisioning/routes.ts
// documents every field; --json prints them whole).

type ParameterChange = { field: string; stored: string; requested: string };
type PlannedStep = { step: string; target: string; action: string; path?: string; from?: string; reason?: string };
type RunView = {
  workflowId: string;
  runId: string;
  part: string;
  status: 'running' | 'completed' | 'failed';
  currentStep: string | null;
  steps: {
    name: string;
    status: string;
    attempts: number;
    lastError: string | null;
    changes: { item: string; outcome: string; note?: string }[];
  }[];
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
};
type DriftEntry = { kind: string; target: string; name: string; path: string; detail?: string };

/** A start's answer (initialize, a part, cloud-instance); initialize adds the diff and the plan, cloud-instance `replacing`. */
export type Accepted = {
  requestId: string;
  workflowId: string;
  runId: string | null;
  part: string;
  steps: string[];
  statusUrl: string;
  record?: 'created' | 'updated' | 'unchanged';
  changes?: ParameterChange[];
  plan?: PlannedStep[];
  replacing?: string | null;
};

export type Status = {
  cellId: string;
  status: 'not_started' | 'queued' | 'running' | 'completed' | 'failed';
  currentStep: string | null;
  failingStep: { name: string; attempts: number; lastError: string | null } | null;
  company: {
    companyKey: string;
    nameEn: string;
    nameZh: string;
    rootPath: string;
    cloud: { profile: string; accountId: string; region: string; instanceName: string };
    pendingMove: { fromRoot: string; toRoot: string; fromKey: string; toKey: string } | null;
  } | null;
  server: {
    provider: string;
    instanceId: string;
    state: string;
    address: string | null;
    generation: number;
    replaced: { instanceId: string }[];
    remedy: string | null;
  } | null;
  folders: unknown[];
  agentProfiles: unknown[];
  runs: RunView[];
  drift: {
    checked: boolean;
    count: number;
    entries: DriftEntry[];
    instance?: { checked: boolean; state: string | null; error: string | null } | null;
  } | null;
};

export type Listed = {
  companies: {
    cellId: string;
    name: string;
    companyKey: string | null;
    status: string;
    lastRun: { workflowId: string; status: string; startedAt: string } | null;
    instance: { instanceId: string; state: string; remedy: string | null } | null;
    driftCount: number | null;
    pendingMove: boolean;
  }[];
  next: string | null;
};

const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');

export function listLines(page: Listed): string[] {
  return [
    ...table(
      ['CELL', 'NAME', 'KEY', 'STATUS', 'LAST RUN', 'INSTANCE', 'DRIFT'],
      page.companies.map((c) => [
        c.cellId,
        c.name,
        c.companyKey ?? '-',
        `${c.status}${c.pendingMove ? ' (move pending)' : ''}`,
        c.lastRun ? `${c.lastRun.status} ${when(c.lastRun.startedAt)}` : '-',
        c.instance ? `${c.instance.state}${c.instance.remedy ? ' (needs action)' : ''}` : '-',
        c.driftCount === null ? '-' : String(c.driftCount),
      ]),
    ),
    ...(page.next ? ['', `More: svc admin companies list --after ${page.next}`] : []),
  ];
}

/** The parameter diff and the step plan, as the service planned them. */
export function planLines(answer: Pick<Accepted, 'changes' | 'plan'>): string[] {
  const lines: string[] = [];
  if (answer.changes) {
    lines.push(answer.changes.length ? 'Parameter changes:' : 'Parameter changes: none.');
    for (const c of answer.changes) lines.push(`  ${c.field}: ${c.stored} -> ${c.requested}`);
  }
  if (answer.plan?.length) {
    lines.push(
      'Plan:',
      ...table(
        ['STEP', 'TARGET', 'ACTION', 'WHERE'],
        answer.plan.map((s) => [s.step, s.target, s.action, s.reason ?? (s.from && s.path ? `${s.from} -> ${s.path}` : (s.path ?? ''))]),
      ).map((l) => `  ${l}`),
    );
  }
  return lines;
}

export function acceptedLines(answer: Omit<Accepted, 'requestId' | 'runId'> & { runId?: string | null }): string[] {
  const run = answer.runId === undefined ? 'would start or join' : answer.runId ? `run ${answer.runId} of` : 'queued (no worker yet):';
  return [
    `${run} ${answer.workflowId}: ${answer.steps.join(', ')}`,
    ...(answer.record ? [`Record: ${answer.record}`] : []),
    ...(answer.replacing ? [`Replacing instance ${answer.replacing}`] : []),
    ...planLines(answer),
  ];
}

export function statusLines(s: Status): string[] {
  const lines = [`${s.cellId}: ${s.status}${s.currentStep ? ` (step ${s.currentStep})` : ''}`];
  if (s.company) {
    lines.push(`  company ${s.company.companyKey} (${s.company.nameEn}) at ${s.company.rootPath}`);
    const m = s.company.pendingMove;
    if (m) lines.push(`  move pending: ${m.fromRoot} (${m.fromKey}) -> ${m.toRoot} (${m.toKey})`);
  }
  if (s.failingStep)
    lines.push(`  failing step ${s.failingStep.name} (attempt ${s.failingStep.attempts}): ${s.failingStep.lastError ?? ''}`);
  if (s.server) {
    const replaced = s.server.replaced.length ? `, replaced ${s.server.replaced.map((r) => r.instanceId).join(', ')}` : '';
    lines.push(`  instance ${s.server.instanceId} (${s.server.provider}): ${s.server.state}${replaced}`);
    if (s.server.remedy) lines.push(`  remedy: ${s.server.remedy}`);
  }
  lines.push(`  folders ${s.folders.length}, agent profiles ${s.agentProfiles.length}`);
  if (s.drift) {
    const instance = s.drift.instance;
    const unchecked = !s.drift.checked
      ? ' (the root could not be looked at)'
      : instance && !instance.checked
        ? ` (provider not asked: ${instance.error})`
        : '';
    lines.push(`  drift: ${s.drift.count}${unchecked}`);
    for (const e of s.drift.entries)
      lines.push(`    ${e.kind} ${e.target} ${e.name}${e.detail ? `: ${e.detail}` : e.path ? ` (${e.path})` : ''}`);
  }
  for (const r of s.runs.slice(0, 3)) {
    lines.push(`  run ${r.workflowId} ${r.runId}: ${r.status}, ${when(r.startedAt)}${r.error ? `: ${r.error}` : ''}`);
    for (const st of r.steps) {
      const counts = new Map<string, number>();
      for (const c of st.changes) counts.set(c.outcome, (counts.get(c.outcome) ?? 0) + 1);
      const summary = [...counts].map(([outcome, n]) => `${outcome} ${n}`).join(', ');
      lines.push(`    ${st.name}: ${st.status}${st.attempts > 1 ? ` after ${st.attempts} attempts` : ''}${summary ? ` (${summary})` : ''}`);
    }
  }
  return lines;
}
