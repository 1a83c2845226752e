import { type Command, Option } from 'commander';
import type { ListedRun, RunView } from '../../../schemas/app-workflows.ts';
import { APP_OPTION, type AppAddress, type AppOptions, appPath, DIR_OPTION, resolveApp } from '../../util/app-address.ts';
import { wholeNumber } from '../../util/arguments.ts';
import type { ApiClient } from '../../util/client.ts';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { followStream } from '../../util/follow-stream.ts';

type RunsOptions = AppOptions & { limit: number; follow?: true };
type RunList = { runs: ListedRun[]; lastEventSeq: number };
type Step = RunView['steps'][number];
/** The watch stream's progress events (api/app-workflows/watch-stream.ts). */
type RunEvent = Pick<RunView, 'workflowId' | 'trigger' | 'status' | 'durationMs' | 'error'> & { type: 'run'; runId: string };
type StepEvent = { type: 'step'; runId: string; step: Step };

const MARK: Record<Step['status'], string> = { running: '…', succeeded: '✓', failed: '✗', skipped: '-', suppressed: '-' };

export function registerRuns(program: Command): void {
  program
    .command('runs')
    .description('Show the app’s workflow runs with their steps and their Temporal UI addresses, oldest first')
    .option(...APP_OPTION)
    .option(...DIR_OPTION)
    .addOption(new Option('--limit <n>', 'at most this many of the newest runs').default(20).argParser(wholeNumber(1, 200)))
    .option('-f, --follow', 'then print run and step progress as it happens, until interrupted (with --json: one JSON event per line)')
    .action(withContext(showRuns));
}

async function showRuns(ctx: Context, options: RunsOptions): Promise<void> {
  const client = ctx.client();
  const app = await resolveApp(client, options);
  const { runs, lastEventSeq } = await listRuns(client, app, options.limit);
  const oldestFirst = runs.reverse();
  if (!options.follow) {
    ctx.out.result({ app, runs: oldestFirst }, () =>
      oldestFirst.length ? oldestFirst.flatMap(runLines) : `${app.namespace}/${app.slug} has no workflow runs yet.`,
    );
    return;
  }
  for (const run of oldestFirst) ctx.out.item({ type: 'listed', run }, () => runLines(run).join('\n'));
  if (!ctx.out.json) ctx.out.note(`Following the runs of ${app.namespace}/${app.slug} (Ctrl-C ends) …`);
  await follow(ctx, client, app, lastEventSeq, new Set(runs.map((r) => r.id)));
}

const listRuns = (client: ApiClient, app: AppAddress, limit: number) =>
  client.request<RunList>('GET', `${appPath(app)}/workflow-runs`, { query: { limit: String(limit) } });

/** The watch stream from `after` on, reconnecting where it asks to; `end` fails the command with its code. */
function follow(ctx: Context, client: ApiClient, app: AppAddress, after: number, known: Set<string>): Promise<never> {
  return followStream(client, `${appPath(app)}/workflow-runs/watch`, {}, String(after), async ({ id, event, data }) => {
    const seq = Number(id);
    if (event === 'run') {
      const run = data as RunEvent;
      // A run first seen here: its Temporal UI address comes with the list.
      const temporalUi = known.has(run.runId) ? undefined : await addressOf(client, app, run.runId);
      known.add(run.runId);
      ctx.out.item({ seq, ...run, ...(temporalUi !== undefined ? { temporalUi } : {}) }, () => runEventLine(run, temporalUi));
    } else if (event === 'step') {
      const { runId, step } = data as StepEvent;
      ctx.out.item({ type: 'step', seq, runId, step }, () => `${runId}  ${stepLine(step)}`);
    }
  });
}

async function addressOf(client: ApiClient, app: AppAddress, runId: string): Promise<string | null> {
  const { runs } = await listRuns(client, app, 20);
  return runs.find((r) => r.id === runId)?.temporalUi ?? null;
}

function runLines(run: ListedRun): string[] {
  const done = run.steps.filter((s) => s.status !== 'running').length;
  const when = run.startedAt.slice(0, 19).replace('T', ' ');
  return [
    `${run.id}  ${run.status}  ${run.trigger}  ${run.version} ${run.channel}  ${when}  ${duration(run.durationMs)}  steps ${done}/${run.steps.length}`,
    ...run.steps.map((s) => `  ${stepLine(s)}`),
    ...(run.error ? [`  error: ${run.error}`] : []),
    `  Temporal: ${run.temporalUi ?? `(no Temporal UI known to the service) workflow id ${run.workflowId}`}`,
  ];
}

function runEventLine(run: RunEvent, temporalUi: string | null | undefined): string {
  const head =
    run.status === 'running' ? `${run.runId}  started (${run.trigger})` : `${run.runId}  ${run.status}  ${duration(run.durationMs)}`;
  return [
    head,
    ...(run.error ? [`  error: ${run.error}`] : []),
    ...(temporalUi !== undefined
      ? [`  Temporal: ${temporalUi ?? `(no Temporal UI known to the service) workflow id ${run.workflowId}`}`]
      : []),
  ].join('\n');
}

const stepLine = (s: Step) =>
  `${MARK[s.status]} ${s.id} (${s.kind}) ${s.status}${s.status === 'running' ? '' : ` ${duration(s.durationMs)}`}${s.error ? `: ${s.error}` : ''}`;

const duration = (ms: number | null) => (ms === null ? '-' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
