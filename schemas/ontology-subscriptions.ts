import { z } from 'zod';
import { ObjectTypeApiName, OntologyObject, PropertyApiName, Where, type WhereClause } from './ontology.ts';

// Object-set subscriptions (Foundry's streamSubscriptions shapes, plus our sequence numbers): the
// request and the messages of the event stream. Each message is one server-sent event named by
// its `type`, with the change sequence number as the event id.

/**
 * The object sets a subscription may name: those whose membership is a property of one object
 * (base, filter, union, intersect, subtract), so a change is judged from the object alone.
 */
export type SubscribableObjectSet =
  | { type: 'base'; objectType: string }
  | { type: 'filter'; objectSet: SubscribableObjectSet; where: WhereClause }
  | { type: 'union' | 'intersect' | 'subtract'; objectSets: SubscribableObjectSet[] };

/** Sets nest at most this deep; deeper is refused by the schema, without recursion. */
export const MAX_OBJECT_SET_DEPTH = 3;
const MAX_OBJECT_SET_OPERANDS = 10;

function objectSetAt(depth: number): z.ZodType<SubscribableObjectSet> {
  const base = z.strictObject({ type: z.literal('base'), objectType: ObjectTypeApiName });
  if (depth === 0) return base as z.ZodType<SubscribableObjectSet>;
  const inner = objectSetAt(depth - 1);
  const operands = z.array(inner).min(1).max(MAX_OBJECT_SET_OPERANDS);
  return z.discriminatedUnion('type', [
    base,
    z.strictObject({ type: z.literal('filter'), objectSet: inner, where: Where }),
    z.strictObject({ type: z.literal('union'), objectSets: operands }),
    z.strictObject({ type: z.literal('intersect'), objectSets: operands }),
    z.strictObject({ type: z.literal('subtract'), objectSets: operands }),
  ]) as z.ZodType<SubscribableObjectSet>;
}

export const SubscribableObjectSet = objectSetAt(MAX_OBJECT_SET_DEPTH).meta({
  description:
    'An object set of one object type: {type: base, objectType}, {type: filter, objectSet, where}, ' +
    `{type: union|intersect|subtract, objectSets: []}; nested at most ${MAX_OBJECT_SET_DEPTH} deep.`,
});

/** Subscriptions per stream. */
export const MAX_SUBSCRIPTION_REQUESTS = 20;

export const StreamSubscriptionsRequest = z.strictObject({
  /** The client's id for this request; subscribeResponses echoes it. */
  id: z.string().min(1).max(100).optional(),
  requests: z
    .array(
      z.strictObject({
        objectSet: SubscribableObjectSet,
        /** The properties each object carries (all when absent or empty); the system fields always. */
        propertySet: z.array(PropertyApiName).max(200).optional(),
      }),
    )
    .min(1)
    .max(MAX_SUBSCRIPTION_REQUESTS),
  /** Resume after this sequence number (the last event id seen); Last-Event-ID does the same. */
  afterSeq: z.number().int().min(0).optional(),
});
export type StreamSubscriptionsRequest = z.infer<typeof StreamSubscriptionsRequest>;

export const ObjectUpdate = z.object({
  type: z.literal('object'),
  /** ADDED_OR_UPDATED: the object now. REMOVED: only its identity (`__apiName`, `__primaryKey`, `__rid`). */
  object: OntologyObject.or(z.object({ __apiName: z.string(), __primaryKey: z.union([z.string(), z.number()]), __rid: z.string() })),
  state: z.enum(['ADDED_OR_UPDATED', 'REMOVED']),
});
export type ObjectUpdate = z.infer<typeof ObjectUpdate>;

/** Why a subscription ended: the error the same request would get now. */
export const SubscriptionClosedCause = z.object({
  type: z.literal('error'),
  code: z.string(),
  status: z.number().int(),
  message: z.string(),
});

export const SubscriptionMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('subscribeResponses'),
    /** The request's id (or one the service chose). */
    id: z.string(),
    responses: z.array(z.object({ type: z.literal('success'), id: z.string() })),
  }),
  z.object({ type: z.literal('objectSetChanged'), id: z.string(), updates: z.array(ObjectUpdate) }),
  /** Changes may have been missed: reload the set (then keep listening). */
  z.object({ type: z.literal('refreshObjectSet'), id: z.string(), objectType: z.string() }),
  z.object({ type: z.literal('subscriptionClosed'), id: z.string(), cause: SubscriptionClosedCause }),
]);
export type SubscriptionMessage = z.infer<typeof SubscriptionMessage>;
