import type { AutomationTick, AutomationTrigger, ChangeKind } from '../../schemas/automate.ts';
import type { OntologyObject } from '../../schemas/ontology.ts';
import type { Db, DbOrTrx } from '../db/index.ts';
import { aggregate, type Change, matchObjects, withStates } from '../ontology/index.ts';
import { watchedType } from './definition.ts';
import { automationById, type StoredAutomation } from './repository.ts';

// What one tick of an automation's workflow (a committed change of the data layer, relayed from the
// outbox; a schedule's firing) makes of it: the triggers that fire, each with the key that makes it
// one run however often it is delivered.

export interface FiredTrigger {
  /** Unique per automation: `change:<seq>`, `threshold:<seq>`, `schedule:<time>`. */
  key: string;
  trigger: AutomationTrigger;
}

/** Changes of one tick read in one page: a larger range (a sync's page, an import of many objects) is read on in the next. */
export const MAX_CHANGES_PER_TICK = 1000;

const kindOf = (c: Change): ChangeKind => (c.before === null ? 'added' : c.after === null ? 'removed' : 'modified');

/** The first page of changes of the watched type in the tick's range, in sequence order, with their states, and the range after it. */
async function changesOf(db: DbOrTrx, companyId: string, typeId: string, tick: { fromSeq: number; toSeq: number }) {
  const rows = await db
    .selectFrom('ontology_changes')
    .select(['seq', 'company_id', 'object_type_id', 'primary_key', 'state'])
    .where('company_id', '=', companyId)
    .where('object_type_id', '=', typeId)
    .where('seq', '>=', tick.fromSeq)
    .where('seq', '<=', tick.toSeq)
    .orderBy('seq')
    .limit(MAX_CHANGES_PER_TICK)
    .execute();
  const last = rows.length === MAX_CHANGES_PER_TICK ? Number(rows.at(-1)!.seq) : tick.toSeq;
  const rest: AutomationTick | null = last < tick.toSeq ? { kind: 'change', fromSeq: last + 1, toSeq: tick.toSeq } : null;
  const changes = await withStates(
    db,
    rows.map((r) => ({ ...r, seq: Number(r.seq) })),
  );
  return { changes, rest };
}

const holds = (value: number | null, operator: 'gt' | 'gte' | 'lt' | 'lte', bound: number) =>
  value !== null && { gt: value > bound, gte: value >= bound, lt: value < bound, lte: value <= bound }[operator];

/** A threshold's aggregate now (null: no value, e.g. the max of no objects). */
export async function thresholdValue(db: DbOrTrx, automation: StoredAutomation): Promise<{ value: number | null; met: boolean }> {
  const condition = automation.condition;
  if (condition.type !== 'threshold') return { value: null, met: false };
  const { ontology, type } = await watchedType(db, automation.company_id, condition.objectType);
  const result = await aggregate(db, ontology, type, { aggregation: [condition.aggregation], where: condition.where, groupBy: [] });
  const metric = result.data[0]?.metrics[0]?.value;
  const value = typeof metric === 'number' && Number.isFinite(metric) ? metric : null;
  return { value, met: holds(value, condition.operator, condition.value) };
}

/** What one page of a tick fires, and the rest of its range to read next (before any later tick), if any. */
export interface TickPage {
  fired: FiredTrigger[];
  rest: AutomationTick | null;
}

const fires = (fired: FiredTrigger[]): TickPage => ({ fired, rest: null });

/**
 * The triggers a tick fires, a page of its changes at a time; null once the automation is gone
 * (its workflow ends). A disabled automation fires nothing. objectsChanged: each change of the type
 * in the range of a kind it watches whose object (after the change; before it, when removed)
 * matches the where clause. threshold: one trigger when the aggregate goes from not holding to
 * holding (remembered).
 */
export async function triggerAutomation(db: Db, automationId: string, tick: AutomationTick, at: string): Promise<TickPage | null> {
  const automation = await automationById(db, automationId);
  if (!automation) return null;
  if (!automation.enabled) return fires([]);
  const condition = automation.condition;
  if (tick.kind === 'schedule') {
    return fires(condition.type === 'schedule' ? [{ key: `schedule:${tick.at}`, trigger: { kind: 'schedule', at: tick.at } }] : []);
  }
  if (condition.type === 'objectsChanged') {
    const { ontology, type } = await watchedType(db, automation.company_id, condition.objectType);
    const page = await changesOf(db, automation.company_id, type.id, tick);
    // A change whose states are gone (edits history trimmed) cannot be judged: it fires nothing.
    const changes = page.changes.filter((c) => (c.after ?? c.before) !== null && condition.changes.includes(kindOf(c)));
    const states = changes.map((c) => (c.after ?? c.before) as OntologyObject);
    const matches = await matchObjects(db, ontology, type, condition.where, states);
    const fired = changes
      .filter((_, i) => matches[i])
      .map((c) => ({
        key: `change:${c.seq}`,
        trigger: { kind: 'change' as const, at, objectType: type.apiName, primaryKey: c.primaryKey, change: kindOf(c), seq: c.seq },
      }));
    return { fired, rest: page.rest };
  }
  if (condition.type === 'threshold') {
    return db.transaction().execute(async (trx) => {
      const locked = await automationById(trx, automationId, true);
      if (!locked) return null;
      const { value, met } = await thresholdValue(trx, locked);
      await trx.updateTable('automations').set({ threshold_met: met }).where('id', '=', automationId).execute();
      if (!met || locked.threshold_met === true) return fires([]);
      return fires([{ key: `threshold:${tick.toSeq}`, trigger: { kind: 'threshold', at, objectType: condition.objectType, value } }]);
    });
  }
  return fires([]);
}
