import type { Limits } from '../../schemas/manifest/limits.ts';
import { BoundedCache } from '../cache/index.ts';
import type { Db, DbOrTrx } from '../db/index.ts';
import type { Clock, DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { cacheFamily, readThrough } from '../keys/index.ts';
import { consumeReserved } from '../rate-limit/index.ts';
import { COMPUTE_METERS, type Meter, nextDayStart, nextMonthStart } from './meters.ts';
import { capsOfApp, readCounters } from './repository.ts';

const MS_PER_MINUTE = 60_000;
const WARNING_SHARE = 0.8;

export interface ComputeUse {
  liveMs: number;
  workflowMs: number;
  modelMs: number;
  usedMs: number;
  limitMinutes: number;
  /** At least 80 percent of the month's minutes are used. */
  warning: boolean;
  exhausted: boolean;
}

export function computeUse(counters: Record<(typeof COMPUTE_METERS)[number], number>, caps: Limits): ComputeUse {
  const usedMs = counters['compute.live'] + counters['compute.workflow'] + counters['compute.model'];
  const limitMs = caps.computeMinutesPerMonth * MS_PER_MINUTE;
  return {
    liveMs: counters['compute.live'],
    workflowMs: counters['compute.workflow'],
    modelMs: counters['compute.model'],
    usedMs,
    limitMinutes: caps.computeMinutesPerMonth,
    warning: usedMs >= limitMs * WARNING_SHARE,
    exhausted: usedMs >= limitMs,
  };
}

/** Whole micro-units as a decimal string (`3500000` → `"3.500000"`): exact, never a float. */
export function microToDecimal(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const abs = Math.abs(micro);
  return `${sign}${Math.floor(abs / 1_000_000)}.${String(abs % 1_000_000).padStart(6, '0')}`;
}

export const usdToMicro = (usd: number) => Math.round(usd * 1_000_000);

const secondsUntil = (clock: Clock, until: Date) => Math.max(1, Math.ceil((until.getTime() - clock.now().getTime()) / 1000));

async function computeExhaustion(db: DbOrTrx, clock: Clock, appId: string, what: string): Promise<void> {
  const now = clock.now();
  const [caps, counters] = await Promise.all([capsOfApp(db, appId), readCounters(db, appId, COMPUTE_METERS, now)]);
  const use = computeUse(counters, caps);
  if (!use.exhausted) return;
  const resetsAt = nextMonthStart(now);
  throw new DomainError(
    'quota_exhausted',
    `This app has used its ${caps.computeMinutesPerMonth} compute minutes of this month; ${what} again from ${resetsAt.toISOString()}.`,
    {
      details: { limit: 'computeMinutesPerMonth', usedMs: use.usedMs, limitMinutes: use.limitMinutes, resetsAt: resetsAt.toISOString() },
      retryAfterSeconds: secondsUntil(clock, resetsAt),
    },
  );
}

/**
 * Ticket requests (opening the app, renewing its ticket): refused with 429 quota_exhausted once
 * the month's compute minutes are used up, until 00:00 UTC on the 1st of the next month. Read
 * from the current month's counters, so it lifts by itself when the month turns.
 */
export function assertTicketsAllowed(db: DbOrTrx, clock: Clock, appId: string): Promise<void> {
  return computeExhaustion(db, clock, appId, 'it opens');
}

/** How long one process trusts an app's answer for tickets it hands out again (domain/hosting reusable opens). */
const REUSE_CHECK_MS = 1_000;
const reuseChecks = new WeakMap<Db, BoundedCache<string, { at: number; answer: Promise<void> }>>();

/**
 * assertTicketsAllowed for a ticket handed out again: asked of the database at most once a second
 * per app and process, since every reload of an app would ask it. Compute minutes are metered
 * after they are spent anyway, so a second more changes nothing a visitor could notice.
 */
export function assertTicketReuseAllowed(db: Db, clock: Clock, appId: string): Promise<void> {
  const checks = reuseChecks.get(db) ?? new BoundedCache(10_000);
  reuseChecks.set(db, checks);
  // The cache's own age, on the monotonic clock: a test clock standing still must not keep an answer.
  const now = performance.now();
  const seen = checks.get(appId);
  if (seen && now - seen.at < REUSE_CHECK_MS) return seen.answer;
  const answer = assertTicketsAllowed(db, clock, appId);
  // An answer that failed for another reason than the quota is not kept.
  answer.catch((err: unknown) => {
    if (!(err instanceof DomainError)) checks.delete(appId);
  });
  checks.set(appId, { at: now, answer });
  return answer;
}

/**
 * Seam for app workflows (not built yet): a change or schedule trigger calls this before it
 * starts a run, and does not start one while the month's compute minutes are used up.
 */
export function assertTriggerMayStart(db: DbOrTrx, clock: Clock, appId: string): Promise<void> {
  return computeExhaustion(db, clock, appId, 'triggers start');
}

/**
 * Seam for model and transcription calls (not built yet): refused with 429 quota_exhausted when
 * today's tokens are used up (until tomorrow) or this month's priced cost reached
 * monthlyBudgetUsd (`details.spentUsd`, until next month).
 */
export async function assertModelCallAllowed(db: DbOrTrx, clock: Clock, appId: string): Promise<void> {
  const now = clock.now();
  const meters: Meter[] = ['model.tokens', 'model.cost'];
  const [caps, counters] = await Promise.all([capsOfApp(db, appId), readCounters(db, appId, meters, now)]);
  if (counters['model.tokens'] >= caps.dailyTokens) {
    const resetsAt = nextDayStart(now);
    throw new DomainError('quota_exhausted', `This app has used its ${caps.dailyTokens} model tokens of today.`, {
      details: { limit: 'dailyTokens', used: counters['model.tokens'], resetsAt: resetsAt.toISOString() },
      retryAfterSeconds: secondsUntil(clock, resetsAt),
    });
  }
  if (caps.monthlyBudgetUsd !== undefined && counters['model.cost'] >= usdToMicro(caps.monthlyBudgetUsd)) {
    const resetsAt = nextMonthStart(now);
    throw new DomainError('quota_exhausted', `This app has spent its model budget of ${caps.monthlyBudgetUsd} USD this month.`, {
      details: {
        limit: 'monthlyBudgetUsd',
        spentUsd: microToDecimal(counters['model.cost']),
        spentMicroUsd: counters['model.cost'],
        resetsAt: resetsAt.toISOString(),
      },
      retryAfterSeconds: secondsUntil(clock, resetsAt),
    });
  }
}

/** An app's limits by app id: they follow the version its channels show, and every move of a channel empties the cache. */
const APP_CAPS = cacheFamily<Limits>('app-caps');

/**
 * requestsPerMinute: one request made with the app's ticket, counted per app and source IP in a
 * fixed minute window; past the cap 429 rate_limited with Retry-After. Written outside the request's
 * transaction, like every rate-limit counter, so refused and dry-run requests count too; from the
 * process's reserve of the window's count when it holds one (`consumeReserved`), so most requests
 * write nothing and wait for no statement.
 */
export async function consumeAppRequest(deps: Pick<DomainDeps, 'db' | 'clock' | 'principals'>, appId: string, ip: string): Promise<void> {
  const caps = (await readThrough(deps, APP_CAPS, appId, () => capsOfApp(deps.db, appId)))!;
  await consumeReserved(deps.db, { name: `app-requests:${appId}`, max: caps.requestsPerMinute, windowSeconds: 60 }, ip, deps.clock);
}

/**
 * worldCreditsPerDay (spec Limits): a generation costing `credits` is refused with 429
 * quota_exhausted when today's credits plus it would pass the cap, until 00:00 UTC; with the
 * default cap 0 the app views scenes only. Read in the caller's transaction, which then counts the
 * credits (serializable: two requests cannot both take the last credit).
 */
export async function assertWorldCreditsAvailable(db: DbOrTrx, clock: Clock, appId: string, credits: number): Promise<void> {
  const now = clock.now();
  const [caps, counters] = await Promise.all([capsOfApp(db, appId), readCounters(db, appId, ['world.credits'], now)]);
  const used = counters['world.credits'];
  if (used + credits <= caps.worldCreditsPerDay) return;
  const resetsAt = nextDayStart(now);
  throw new DomainError(
    'quota_exhausted',
    caps.worldCreditsPerDay === 0
      ? 'This app views scenes only: its manifest sets no `worldCreditsPerDay`, so it never generates.'
      : `This app has used ${used} of its ${caps.worldCreditsPerDay} world credits of today; this generation needs ${credits}.`,
    {
      details: {
        limit: 'worldCreditsPerDay',
        used,
        needed: credits,
        limitCredits: caps.worldCreditsPerDay,
        resetsAt: resetsAt.toISOString(),
      },
      retryAfterSeconds: secondsUntil(clock, resetsAt),
    },
  );
}
