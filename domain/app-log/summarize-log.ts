import { sql } from 'kysely';
import type { LogKind, LogSummary } from '../../schemas/app-log.ts';
import { LOG_LIMITS } from '../../schemas/app-log.ts';
import { compareVersions, loadAppView } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock, PublicAddresses } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { selectLog, toView } from './list-events.ts';
import { appForReading } from './log-app.ts';

const DAY_MS = 86_400_000;
const TOP = 10;
const RECENT = 10;

interface Aggregates {
  counts: Partial<Record<LogKind, number>> | null;
  visitors: number;
  top: { kind: 'usage' | 'action'; name: string; count: number }[] | null;
  by_day: { day: string; count: number }[] | null;
  open_feedback: number;
  errors_counted: number;
}

/**
 * The app's last `days` UTC days in one statement over the daily roll-ups the writer keeps
 * (`app_log_daily`, `app_log_visitors`): its cost grows with days, names and visitors, not events.
 * Open feedback counts all time (the partial index `app_log_events_open_feedback`): it is work
 * still to do.
 */
async function aggregates(db: DbOrTrx, appId: string, since: Date): Promise<Aggregates> {
  const sinceDay = since.toISOString().slice(0, 10);
  const result = await sql<Aggregates>`
    WITH w AS MATERIALIZED (
      SELECT kind, name, day, count FROM app_log_daily WHERE app_id = ${appId} AND day >= ${sinceDay}::date
    )
    SELECT
      (SELECT jsonb_object_agg(kind, n) FROM (SELECT kind, sum(count)::int AS n FROM w GROUP BY kind) k) AS counts,
      (SELECT count(*)::int FROM app_log_visitors WHERE app_id = ${appId} AND last_day >= ${sinceDay}::date) AS visitors,
      (SELECT jsonb_agg(jsonb_build_object('kind', kind, 'name', name, 'count', n) ORDER BY n DESC, name)
         FROM (SELECT kind, name, n, row_number() OVER (PARTITION BY kind ORDER BY n DESC, name) AS rank
               FROM (SELECT kind, name, sum(count)::int AS n FROM w WHERE kind IN ('usage', 'action') GROUP BY kind, name) g) t
         WHERE rank <= ${TOP}) AS top,
      (SELECT jsonb_agg(jsonb_build_object('day', day, 'count', n) ORDER BY day)
         FROM (SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(count)::int AS n FROM w WHERE kind = 'usage' GROUP BY 1) d) AS by_day,
      (SELECT count(*)::int FROM app_log_events WHERE app_id = ${appId} AND status = 'open') AS open_feedback,
      (SELECT coalesce(sum(seen - ${LOG_LIMITS.errorsPerClass}), 0)::int FROM app_log_error_counts
         WHERE app_id = ${appId} AND day >= ${sinceDay}::date AND seen > ${LOG_LIMITS.errorsPerClass}) AS errors_counted
  `.execute(db);
  return result.rows[0]!;
}

/** GET summary: counts, visitors, top actions, usage by day, open feedback, recent errors, versions and releases. */
export async function summarizeLog(
  db: DbOrTrx,
  deps: { clock: Clock; addresses: PublicAddresses },
  principal: Principal,
  namespace: string,
  query: { slug: string; days: number },
): Promise<LogSummary> {
  const app = await appForReading(db, principal, namespace, query.slug);
  // Whole UTC days: today and the `days - 1` before it.
  const today = Math.floor(deps.clock.now().getTime() / DAY_MS) * DAY_MS;
  const since = new Date(today - (query.days - 1) * DAY_MS);
  const agg = await aggregates(db, app.id, since);
  const feedback = await selectLog(db, [sql`e.app_id = ${app.id}`, sql`e.status = 'open'`], RECENT);
  const errors = await selectLog(db, [sql`e.app_id = ${app.id}`, sql`e.kind = 'error'`, sql`e.at >= ${since}`], RECENT);
  const view = await loadAppView(db, deps.addresses, namespace, query.slug);
  const releases = view.releases;
  const releaseCount = releases.filter((r) => Date.parse(r.at) >= since.getTime()).length;
  const deployCount = view.versions.filter((v) => Date.parse(v.createdAt) >= since.getTime()).length;
  const byDay = new Map((agg.by_day ?? []).map((d) => [d.day, d.count]));
  const usageByDay = Array.from({ length: query.days }, (_, i) => {
    const day = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    return { day, count: byDay.get(day) ?? 0 };
  });
  const all = view.versions.map((v) => v.version).sort(compareVersions);
  const top = agg.top ?? [];
  return {
    app: query.slug,
    days: query.days,
    since: since.toISOString(),
    counts: {
      usage: agg.counts?.usage ?? 0,
      feedback: agg.counts?.feedback ?? 0,
      error: agg.counts?.error ?? 0,
      action: agg.counts?.action ?? 0,
      share: agg.counts?.share ?? 0,
      release: releaseCount + deployCount,
    },
    visitors: agg.visitors,
    topActions: top.filter((t) => t.kind === 'action').map(({ name, count }) => ({ name, count })),
    topUsage: top.filter((t) => t.kind === 'usage').map(({ name, count }) => ({ name, count })),
    usageByDay,
    openFeedback: { count: agg.open_feedback, recent: feedback.map(toView) },
    errors: { counted: agg.errors_counted, recent: errors.map(toView) },
    versions: view.versions.map((v) => ({ version: v.version, build: v.build, status: v.status, tested: v.tested })),
    releases: releases.map(({ channel, action, from, to, by, at }) => ({ channel, action, from, to, by, at })),
    semanticVersions: { latest: all.at(-1) ?? null, live: view.channels.production, test: view.channels.test, all },
  };
}
