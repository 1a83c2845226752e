import { type Command, Option } from 'commander';
import { cellId, wholeNumber } from '../../util/arguments.ts';
import type { ApiClient } from '../../util/client.ts';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { CliError, EXIT } from '../../util/errors.ts';
import { invalidFile, parseJsonFile, readInputFile } from '../../util/input-file.ts';
import { type Accepted, acceptedLines, type Listed, listLines, type Status, statusLines } from './views.ts';

// `svc admin companies …`: the control plane (spec F) for operators. Every write shows its plan
// with --dry-run (the service's dry run: nothing changes) and its answer otherwise; --wait follows
// the run to its end. A refused re-run (409 conflict) prints the diff of parameters and exits 1.

const BASE = '/api/v1/control-plane/companies';
const PARTS = ['all', 'cloud-instance', 'folders', 'agent-profiles'] as const;
type Part = (typeof PARTS)[number];

type WriteOptions = { dryRun?: true; wait?: true };
type InitOptions = WriteOptions & { apply?: 'move' };
type RerunOptions = WriteOptions & { part: Part; replace?: true };
type ListOptions = { limit: number; after?: string };

/** The dry run's answer: `{dryRun: true, plan: {wouldStartOrJoin}}`. */
type DryRun = { dryRun: true; plan: { wouldStartOrJoin: Omit<Accepted, 'requestId' | 'runId'> } };

export function registerAdmin(program: Command): void {
  const companies = program
    .command('admin')
    .description('Operate the service (operators)')
    .command('companies')
    .description('Companies and their provisioning: list, status, initialize and re-run (operators)');
  companies
    .command('list')
    .description('Every company with its provisioning state, last run, instance state and drift count, by cell id')
    .addOption(new Option('--limit <n>', 'companies per page').default(50).argParser(wholeNumber(1, 200)))
    .addOption(new Option('--after <cellId>', 'continue after this cell id (the previous page’s next)').argParser(cellId))
    .action(withContext(list));
  companies
    .command('status')
    .description('A company’s provisioning: state, steps, instance with its remedy, drift, runs')
    .argument('<cellId>', 'the company, e.g. cell-north', cellId)
    .action(withContext(status));
  companies
    .command('init')
    .description(
      'Initialize a company from a JSON file (the initialize request); rerunnable, refused with the diff when parameters changed',
    )
    .argument('<file>', 'a .json file: {cellId, companyKey, nameEn, nameZh, rootPath, cloud: {profile, accountId, region, instanceName}}')
    .addOption(
      new Option('--apply <how>', 'apply a changed companyKey or rootPath: move the tree and rename the profiles').choices(['move']),
    )
    .option('--dry-run', 'print the plan (the parameter diff and the steps per instance, folder and profile); nothing changes')
    .option('--wait', 'wait for the run to end; exit 1 when it failed')
    .action(withContext(init));
  companies
    .command('rerun')
    .description('Run provisioning again with the stored parameters (all parts, or one)')
    .argument('<cellId>', 'the company, e.g. cell-north', cellId)
    .addOption(new Option('--part <part>', 'the part to run').choices(PARTS).default('all'))
    .option('--replace', 'replace a terminated instance (cloud-instance only): a new instance, the old id kept on record')
    .option('--dry-run', 'print the plan; nothing changes')
    .option('--wait', 'wait for the run to end; exit 1 when it failed')
    .action(withContext(rerun));
}

async function list(ctx: Context, options: ListOptions): Promise<void> {
  const query: Record<string, string> = { limit: String(options.limit), ...(options.after ? { after: options.after } : {}) };
  const page = await ctx.client().request<Listed>('GET', BASE, { query });
  ctx.out.result(page, () => listLines(page));
}

const getStatus = (client: ApiClient, cell: string) => client.request<Status>('GET', `${BASE}/${cell}/provisioning-status`);

async function status(ctx: Context, cell: string): Promise<void> {
  const view = await getStatus(ctx.client(), cell);
  ctx.out.result(view, () => statusLines(view));
}

async function init(ctx: Context, file: string, options: InitOptions): Promise<void> {
  const body = await readRequest(file);
  await write(ctx, `${BASE}/initialize`, { ...body, ...(options.apply ? { apply: options.apply } : {}) }, options);
}

async function rerun(ctx: Context, cell: string, options: RerunOptions): Promise<void> {
  if (options.replace && options.part !== 'all' && options.part !== 'cloud-instance') {
    throw new CliError('--replace replaces the instance: it goes with --part cloud-instance (or no --part).', EXIT.usage, {
      code: 'invalid_option',
    });
  }
  const client = ctx.client();
  if (options.replace) return write(ctx, `${BASE}/${cell}/cloud-instance`, { replace: true }, options);
  if (options.part !== 'all') return write(ctx, `${BASE}/${cell}/${options.part}`, {}, options);
  // A full run is initialize with the stored parameters: everything reused unless something drifted.
  const { company } = await getStatus(client, cell);
  if (!company)
    throw new CliError(`${cell} was never initialized: run svc admin companies init <file> first.`, EXIT.failure, { code: 'conflict' });
  const { companyKey, nameEn, nameZh, rootPath, cloud } = company;
  await write(ctx, `${BASE}/initialize`, { cellId: cell, companyKey, nameEn, nameZh, rootPath, cloud }, options);
}

/** A start: its plan with --dry-run, else the answer, then (--wait) the run to its end. */
async function write(ctx: Context, path: string, body: unknown, options: WriteOptions): Promise<void> {
  const client = ctx.client();
  if (options.dryRun) {
    const dry = await client.request<DryRun>('POST', path, { body, dryRun: true });
    ctx.out.result(dry, () => ['Dry run: nothing changed.', ...acceptedLines(dry.plan.wouldStartOrJoin)]);
    return;
  }
  const answer = await client.request<Accepted>('POST', path, { body });
  if (!options.wait) {
    ctx.out.result(answer, () => [...acceptedLines(answer), `Follow it: svc admin companies status ${cellOf(answer)}`]);
    return;
  }
  if (!ctx.out.json) ctx.out.note(acceptedLines(answer).join('\n'));
  const ended = await waitForRun(client, cellOf(answer), answer);
  ctx.out.result({ ...answer, status: ended }, () => statusLines(ended));
  const run = ended.runs.find((r) => r.runId === answer.runId) ?? ended.runs[0];
  if (run?.status === 'failed')
    throw new CliError(`The run failed: ${run.error ?? 'see the steps above'}`, EXIT.failure, { code: 'run_failed' });
}

const cellOf = (answer: { statusUrl: string }) => answer.statusUrl.split('/').at(-2)!;

/** How often --wait looks at the status. */
const WAIT_POLL_MS = 500;

/** The status once the run is over (the answer's run, or the one that starts when a worker takes it). */
async function waitForRun(client: ApiClient, cell: string, answer: Accepted): Promise<Status> {
  for (;;) {
    const view = await getStatus(client, cell);
    if (answer.runId) {
      // The run is listed once its first step has recorded it.
      const run = view.runs.find((r) => r.runId === answer.runId);
      if (run && run.status !== 'running') return view;
    } else if (view.status !== 'running' && view.status !== 'queued') return view;
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}

/** The initialize request from a JSON file; the service refuses anything else with its path (exit 2). */
async function readRequest(file: string): Promise<Record<string, unknown>> {
  const parsed = parseJsonFile(file, await readInputFile(file));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalidFile(`${file}: a JSON object is expected.`);
  return parsed as Record<string, unknown>;
}
