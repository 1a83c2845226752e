import { randomUUID } from 'node:crypto';
import type { OntologyObject } from '../../../schemas/ontology.ts';
import type { ObjectUpdate, StreamSubscriptionsRequest } from '../../../schemas/ontology-subscriptions.ts';
import type { DbOrTrx } from '../../db/index.ts';
import type { Clock } from '../../deps.ts';
import type { Principal } from '../../principal.ts';
import { openOntology } from '../data-access.ts';
import { gatesKey, withoutNulled } from '../object-security.ts';
import { selectObjects } from '../objects.ts';
import type { ObjectTypeRecord, OntologyRecord } from '../repository.ts';
import type { ChangeBatch } from './change-hub.ts';
import { compileMembership, judgeStates, type SetMembership } from './object-set-membership.ts';

// `POST .../streamSubscriptions`: the caller's object sets, checked and compiled once (and again at
// every credential re-check), and what one batch of committed changes means for each of them.

/** More changes than this for one subscription in one batch: the client reloads (refreshObjectSet) instead. */
export const MAX_UPDATES_PER_MESSAGE = 1_000;

export interface ObjectSetSubscription {
  /** `<request id>:<index>`: the same on a resumed stream, so a client keeps its ids. */
  id: string;
  membership: SetMembership;
  /** The properties sent (all when null). */
  propertySet: ReadonlySet<string> | null;
  /** Subscriptions with equal keys in one company have equal sets and gates: a batch judges them once. */
  setKey: string;
}

export interface OpenedSubscriptions {
  ontology: OntologyRecord;
  requestId: string;
  subscriptions: ObjectSetSubscription[];
}

/**
 * The request's subscriptions, for a caller who may read every object type they name (others do
 * not exist for it: object_type_not_found); an invalid where or propertySet is query_invalid.
 */
export async function subscribeObjectSets(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: { ontology: string; request: StreamSubscriptionsRequest },
): Promise<OpenedSubscriptions> {
  const open = await openOntology(deps, principal, input.ontology);
  const requestId = input.request.id ?? randomUUID();
  const subscriptions = input.request.requests.map((r, i) => {
    const membership = compileMembership(open, r.objectSet);
    // The same check as a search's select: every named property exists.
    if (r.propertySet?.length) selectObjects(deps.db, open.ontology, membership.type, r.propertySet);
    return {
      id: `${requestId}:${i}`,
      membership,
      propertySet: r.propertySet?.length ? new Set(r.propertySet) : null,
      setKey: `${membership.type.id}\u0000${JSON.stringify(r.objectSet)}\u0000${gatesKey(membership.type)}`,
    };
  });
  return { ontology: open.ontology, requestId, subscriptions };
}

export type SubscriptionOutcome = { kind: 'updates'; updates: ObjectUpdate[] } | { kind: 'refresh'; objectType: string };

const identity = (type: ObjectTypeRecord, o: OntologyObject) => ({ __apiName: type.apiName, __primaryKey: o.__primaryKey, __rid: o.__rid });

function selected(o: OntologyObject, propertySet: ReadonlySet<string> | null): OntologyObject {
  if (!propertySet) return o;
  return Object.fromEntries(Object.entries(o).filter(([k]) => k.startsWith('__') || propertySet.has(k))) as OntologyObject;
}

/**
 * What a batch means for one subscription. An object in the set after its change is sent as it is
 * now (ADDED_OR_UPDATED); one that was in the set before and is not any more gets a REMOVED notice
 * with its identity only, so only those who could see it before learn that it left; objects in
 * the set neither before nor after are never mentioned.
 */
export async function changesFor(
  db: DbOrTrx,
  ontology: OntologyRecord,
  sub: ObjectSetSubscription,
  batch: ChangeBatch,
): Promise<SubscriptionOutcome> {
  const { type, condition } = sub.membership;
  const mine = batch.changes.filter((c) => c.objectTypeId === type.id);
  if (mine.length > MAX_UPDATES_PER_MESSAGE) return { kind: 'refresh', objectType: type.apiName };
  if (mine.length === 0) return { kind: 'updates', updates: [] };
  const judged = await batch.memo(sub.setKey, async () => {
    const [inSet] = await judgeStates(db, ontology, type, [condition], [...mine.map((c) => c.before), ...mine.map((c) => c.after)]);
    return new Map(mine.map((c, i) => [c.seq, { before: inSet![i]!, after: inSet![mine.length + i]! }]));
  });
  const updates: ObjectUpdate[] = [];
  for (const c of mine) {
    const was = judged.get(c.seq)!;
    if (was.after && c.after)
      updates.push({ type: 'object', object: selected(withoutNulled(type, c.after), sub.propertySet), state: 'ADDED_OR_UPDATED' });
    else if (was.before && c.before) updates.push({ type: 'object', object: identity(type, c.before), state: 'REMOVED' });
  }
  return { kind: 'updates', updates };
}
