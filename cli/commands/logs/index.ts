import { type Command, InvalidArgumentError, Option } from 'commander';
import { type LogEventView, LogKind } from '../../../schemas/app-log.ts';
import { APP_OPTION, type AppAddress, type AppOptions, DIR_OPTION, resolveApp } from '../../util/app-address.ts';
import { wholeNumber } from '../../util/arguments.ts';
import type { ApiClient } from '../../util/client.ts';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { followStream } from '../../util/follow-stream.ts';

type LogsOptions = AppOptions & { kind?: LogKind; since?: string; limit: number; follow?: true };
type Page = { events: LogEventView[]; nextCursor: string | null };

/** The API's largest page. */
const PAGE = 200;

export function registerLogs(program: Command): void {
  program
    .command('logs')
    .description('Show the app log (opens, usage, feedback, errors, actions, shares, releases), oldest first')
    .option(...APP_OPTION)
    .option(...DIR_OPTION)
    .addOption(new Option('--kind <kind>', 'only records of this kind').choices(LogKind.options))
    .addOption(new Option('--since <when>', 'records from then on: a duration back (30s, 15m, 2h, 7d) or an ISO time').argParser(sinceTime))
    .addOption(new Option('--limit <n>', 'at most this many of the newest records').default(50).argParser(wholeNumber(1, 1000)))
    .option(
      '-f, --follow',
      'then print new records as they come (the log’s event stream), until interrupted or the key is revoked (exit 3); with --json one JSON record per line',
    )
    .action(withContext(showLogs));
}

async function showLogs(ctx: Context, options: LogsOptions): Promise<void> {
  const client = ctx.client();
  const app = await resolveApp(client, options);
  const filter = { slug: app.slug, ...(options.kind ? { kind: options.kind } : {}) };
  const newest = await readLog(client, app, { ...filter, ...(options.since ? { from: options.since } : {}) }, options.limit);
  const events = newest.reverse();
  if (!options.follow) {
    ctx.out.result({ app, events }, () =>
      events.length
        ? events.map(lineOf)
        : `No records in the log of ${app.namespace}/${app.slug}${options.since ? ` since ${options.since}` : ''}.`,
    );
    return;
  }
  for (const event of events) ctx.out.item(event, () => lineOf(event));
  if (!ctx.out.json) ctx.out.note(`Following the log of ${app.namespace}/${app.slug} (Ctrl-C ends) …`);
  // The stream goes on from the newest record shown (its millisecond, so records of the same one
  // are skipped by id), else from --since, else from the start of a log that was empty.
  const shown = new Set(events.map((e) => e.id));
  const from = events.at(-1)?.at ?? options.since ?? EPOCH;
  await followStream(client, `${logPath(app)}/events/stream`, { ...filter, from }, undefined, ({ event, data }) => {
    const record = data as LogEventView;
    if (event !== 'log' || shown.delete(record.id)) return;
    ctx.out.item(record, () => lineOf(record));
  });
}

const EPOCH = '1970-01-01T00:00:00.000Z';
const logPath = (app: AppAddress) => `/api/v1/developer/log/${encodeURIComponent(app.namespace)}`;

/** The newest records matching `query` (all of them without `limit`), newest first. */
async function readLog(client: ApiClient, app: AppAddress, query: Record<string, string>, limit = Number.POSITIVE_INFINITY) {
  const events: LogEventView[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await client.request<Page>('GET', `${logPath(app)}/events`, {
      query: { ...query, limit: String(Math.min(PAGE, limit - events.length)), ...(cursor ? { cursor } : {}) },
    });
    events.push(...page.events);
    cursor = page.nextCursor;
  } while (cursor && events.length < limit);
  return events;
}

/** One record: when, what, who, which version, and its data as key=value. */
function lineOf(e: LogEventView): string {
  const when = e.at.slice(0, 19).replace('T', ' ');
  const where = e.version ? `${e.version}${e.channel ? ` ${e.channel}` : ''}` : '-';
  return [when, `${e.kind}/${e.name}`.padEnd(18), (e.visitor?.username ?? '-').padEnd(12), where.padEnd(16), detailsOf(e)]
    .join('  ')
    .trimEnd();
}

function detailsOf(e: LogEventView): string {
  const data = e.data && typeof e.data === 'object' ? Object.entries(e.data as Record<string, unknown>) : [];
  const pairs = data
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [...pairs, ...(e.status ? [`[${e.status}]`] : [])].join(' ');
}

const DURATION = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--since`: a duration back from now, or a time with its zone, as the ISO time the API takes. */
function sinceTime(value: string): string {
  const duration = DURATION.exec(value);
  if (duration) return new Date(Date.now() - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS]).toISOString();
  const at = Date.parse(value);
  if (!/^\d{4}-\d\d-\d\d(T.*(Z|[+-]\d\d:\d\d))?$/.test(value) || Number.isNaN(at)) {
    throw new InvalidArgumentError('a duration (30s, 15m, 2h, 7d) or an ISO time such as 2026-11-27 or 2026-11-27T09:00:00Z.');
  }
  return new Date(at).toISOString();
}
