import type { AppUsage } from '../../schemas/usage.ts';
import {
  type AppScheduleObserver,
  callerAccess,
  channelWorkflow,
  findHostedApp,
  nextScheduledRun,
  type TriggerPlan,
  triggersOf,
} from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { computeUse, usdToMicro } from './check-quota.ts';
import { METER_NAMES, nextMonthStart, periodOf } from './meters.ts';
import { capsOfApp, readCounters } from './repository.ts';

const minutes = (ms: number) => Math.round(ms / 60) / 1000;

/** The usage view of one app (app.read-usage: a developer key of its company, or the app's own ticket or app token). */
export async function getAppUsage(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  namespace: string,
  slug: string,
  emailConfigured: boolean,
  schedules: AppScheduleObserver | undefined,
): Promise<AppUsage> {
  const app = await findHostedApp(db, namespace, slug);
  if (!app) throw new DomainError('app_not_found', `No app ${namespace}/${slug}.`, { details: { namespace, slug } });
  const channel = principal.kind === 'ticket' ? principal.ticket.channel : 'production';
  authorize(principal, 'app.read-usage', { app, channel, access: await callerAccess({ db, clock }, principal, app, channel) });
  const now = clock.now();
  const [caps, c, lastReset, production] = await Promise.all([
    capsOfApp(db, app.id),
    readCounters(db, app.id, METER_NAMES, now),
    db.selectFrom('usage_resets').select(['period', 'ran_at']).orderBy('period', 'desc').limit(1).executeTakeFirst(),
    channelWorkflow(db, app.id, 'production'),
  ]);
  const compute = computeUse(c, caps);
  const plan = triggersOf(production?.workflow).schedule;
  const schedule = plan ? await scheduleView(schedules, app.id, plan, now) : null;
  const nextRun = compute.exhausted ? undefined : schedule?.next;
  const budget = caps.monthlyBudgetUsd === undefined ? null : usdToMicro(caps.monthlyBudgetUsd);
  const daily = (used: number, limit: number) => ({ used, limit, exhausted: used >= limit });
  return {
    app: { namespace, slug },
    month: periodOf('month', now),
    day: periodOf('day', now),
    computeMinutes: {
      used: minutes(compute.usedMs),
      live: minutes(compute.liveMs),
      workflow: minutes(compute.workflowMs),
      model: minutes(compute.modelMs),
      limit: compute.limitMinutes,
      warning: compute.warning,
      exhausted: compute.exhausted,
      resetsAt: nextMonthStart(now).toISOString(),
    },
    tokensToday: daily(c['model.tokens'], caps.dailyTokens),
    realtimeSessionsToday: daily(c['realtime.sessions'], caps.realtimeSessionsPerDay),
    worldCreditsToday: daily(c['world.credits'], caps.worldCreditsPerDay),
    notificationsToday: { sent: c['notifications.sent'], blocked: c['notifications.blocked'], limit: caps.notificationsPerDay },
    modelCostThisMonth: { spentMicroUsd: c['model.cost'], budgetMicroUsd: budget, exhausted: budget !== null && c['model.cost'] >= budget },
    limits: Object.fromEntries(Object.entries(caps).filter(([, v]) => v !== undefined)),
    // None while the month's compute minutes are used up: triggers do not start until the reset.
    nextScheduledRun: nextRun ?? null,
    schedule: schedule?.view ?? null,
    emailConfigured,
    lastReset: lastReset ? { month: lastReset.period, ranAt: lastReset.ran_at.toISOString() } : null,
  };
}

/**
 * The schedule as Temporal holds it, since it can be paused or deleted there (the Web UI): only an
 * active one has a next run; a paused one still shows when it would run. Without Temporal's answer
 * the time follows from the manifest, and the state says it is unconfirmed.
 */
async function scheduleView(
  schedules: AppScheduleObserver | undefined,
  appId: string,
  plan: NonNullable<TriggerPlan['schedule']>,
  now: Date,
): Promise<{ view: NonNullable<AppUsage['schedule']>; next: string | undefined }> {
  const seen = await schedules?.observe(appId);
  if (!seen) {
    const next = nextScheduledRun(plan, now)?.toISOString();
    return { view: { state: 'unconfirmed', note: null, nextActionTimes: next ? [next] : [] }, next };
  }
  if (!seen.exists) return { view: { state: 'missing', note: null, nextActionTimes: [] }, next: undefined };
  const nextActionTimes = seen.nextActionTimes.map((t) => t.toISOString());
  return {
    view: { state: seen.paused ? 'paused' : 'active', note: seen.note, nextActionTimes },
    next: seen.paused ? undefined : nextActionTimes[0],
  };
}
