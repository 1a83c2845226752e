import { sql } from 'kysely';
import type { EvidenceQuery, EvidenceView } from '../../schemas/evolve.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { type Declared, declaredOf } from './declared.ts';
import { developedApp, governingVersion } from './evolve-app.ts';
import { decodeCursor, encodeCursor } from './repository.ts';

/** Top usage names and error classes shown. */
const TOP = 50;

/**
 * The slot a log name is about: a slot's name or alias, a token's name (its slot), or either
 * followed by `.`, `:` or `/` and more (`header.click`, `--accent:too-dark`).
 */
export function slotOfName(declared: Declared, name: string): string | null {
  const head = /^[^.:/]+/.exec(name)?.[0] ?? name;
  for (const candidate of [name, head]) {
    const slot = declared.slots.get(candidate);
    if (slot) return slot;
    const token = declared.tokens.get(candidate);
    if (token) return declared.slots.get(token.slot) ?? token.slot;
  }
  return null;
}

/**
 * What the app log says about an app's declared slots and tokens (developers only): its feedback
 * still to handle (open and planned, newest first, a page at a time), its error classes and usage
 * names over the last `days` days, and per slot its tokens, the feedback to handle and usage.
 */
export async function readEvidence(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  query: EvidenceQuery,
): Promise<EvidenceView> {
  const { db } = deps;
  const app = await developedApp(db, principal, namespace, query.slug);
  const declared = declaredOf((await governingVersion(db, app)).manifest);
  let feedback = db
    .selectFrom('app_log_events')
    .select([
      'id',
      'at',
      'name',
      'data',
      'status',
      sql<string>`to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('at_key'),
    ])
    .where('app_id', '=', app.id)
    .where('kind', '=', 'feedback')
    .where('status', 'in', ['open', 'planned']);
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    feedback = feedback.where(sql<boolean>`(at, id) < (${c.at}::timestamptz, ${c.id})`);
  }
  const since = new Date(deps.clock.now().getTime() - query.days * 86_400_000).toISOString().slice(0, 10);
  const daily = (kind: 'error' | 'usage') =>
    db
      .selectFrom('app_log_daily')
      .select(['name', sql<number>`sum(count)::int`.as('count')])
      .where('app_id', '=', app.id)
      .where('kind', '=', kind)
      .where('day', '>=', since)
      .where('name', '!=', 'open')
      .groupBy('name')
      .orderBy('count', 'desc')
      .orderBy('name')
      .limit(TOP)
      .execute();
  const [rows, errors, usage, toHandle] = await Promise.all([
    feedback
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit + 1)
      .execute(),
    daily('error'),
    daily('usage'),
    db
      .selectFrom('app_log_events')
      .select(['name', sql<number>`count(*)::int`.as('count')])
      .where('app_id', '=', app.id)
      .where('kind', '=', 'feedback')
      .where('status', 'in', ['open', 'planned'])
      .groupBy('name')
      .execute(),
  ]);
  const page = rows.slice(0, query.limit);
  const slots = new Map([...declared.regions.keys()].map((slot) => [slot, { slot, tokens: [] as string[], openFeedback: 0, usage: 0 }]));
  for (const token of declared.tokens.values()) slots.get(declared.slots.get(token.slot) ?? token.slot)?.tokens.push(token.name);
  for (const f of toHandle) {
    const slot = slotOfName(declared, f.name);
    if (slot) slots.get(slot)!.openFeedback += f.count;
  }
  const usageView = usage.map((u) => ({ name: u.name, slot: slotOfName(declared, u.name), count: u.count }));
  for (const u of usageView) if (u.slot) slots.get(u.slot)!.usage += u.count;
  return {
    app: `${app.namespace}/${app.slug}`,
    days: query.days,
    slots: [...slots.values()],
    feedback: page.map((f) => {
      const data = (f.data ?? {}) as { rating?: number; message?: string };
      return {
        id: f.id,
        at: f.at.toISOString(),
        topic: f.name,
        slot: slotOfName(declared, f.name),
        rating: data.rating ?? null,
        message: data.message ?? null,
        status: f.status ?? 'open',
      };
    }),
    errors: errors.map((e) => ({ class: e.name, count: e.count })),
    usage: usageView,
    nextCursor: rows.length > query.limit ? encodeCursor(page.at(-1)!) : null,
  };
}
