import type { ObjectSecurityPolicy, SecurityCondition } from '../../schemas/object-security.ts';
import type { MarkingClearance } from './markings.ts';

// Object and property security policies (issue 29, Deliver 5): rules of the one access policy on
// the objects of a type, beside the markings on the type itself. An object policy's conditions must
// all hold or the object does not exist for the principal; a property policy's, or its properties
// read as null. A marking condition is decided by the principal alone; a `userAttribute` condition
// compares a property with the principal's values of an attribute, so it is left as a term the
// store evaluates per object (domain/ontology pushes it into SQL as a where clause). Attributes are
// untrusted text: looked up in a Map (never an object, so `constructor` is just a name), and a
// value holding U+0000 never matches (no stored text can hold it).

/** Whom the rules judge: markings the principal is cleared for, and its user attributes. */
export interface PolicySubject {
  clearance: MarkingClearance;
  attributes: ReadonlyMap<string, readonly string[]>;
}

/** Cleared for nothing, no attributes: the anonymous visitor, and any read that names no principal. */
export const NOBODY: PolicySubject = { clearance: new Map(), attributes: new Map() };

/** `property` must equal one of `values` (an empty list: never). */
export interface AttributeTerm {
  property: string;
  values: readonly string[];
}

/** What an object must meet: always, never, or every term. */
export type Gate = true | false | readonly AttributeTerm[];

/** One policy's gates for one principal: the object's, and each property's (its policies' together). */
export interface PolicyGates {
  object: Gate;
  properties: ReadonlyMap<string, Gate>;
}

/** A user's attributes (derived or a test's what-if) as the rules read them. */
export function attributeMap(attributes: Record<string, readonly string[]>): ReadonlyMap<string, readonly string[]> {
  return new Map(Object.entries(attributes));
}

/** The principal's usable values of an attribute (those without U+0000), none when it lacks it. */
const valuesOf = (subject: PolicySubject, attribute: string) =>
  (subject.attributes.get(attribute) ?? []).filter((v) => !v.includes('\u0000'));

/** Whether one condition holds for the principal on its own (a marking), or the term it leaves. */
export function judgeCondition(c: SecurityCondition, subject: PolicySubject): boolean | AttributeTerm {
  if (c.type === 'marking') return subject.clearance.has(c.markingId);
  return { property: c.property, values: valuesOf(subject, c.attribute) };
}

/** The conjunction of conditions as a gate: false as soon as one fails outright. */
export function gateOf(conditions: readonly SecurityCondition[], subject: PolicySubject): Gate {
  const terms: AttributeTerm[] = [];
  for (const c of conditions) {
    const judged = judgeCondition(c, subject);
    if (judged === false || (judged !== true && judged.values.length === 0)) return false;
    if (judged !== true) terms.push(judged);
  }
  return terms.length === 0 ? true : terms;
}

/** Both gates must be met. */
export function bothGates(a: Gate, b: Gate): Gate {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  return [...a, ...b];
}

/** The gates a policy sets for a principal: linear in the policy's size. */
export function policyGates(policy: ObjectSecurityPolicy, subject: PolicySubject): PolicyGates {
  const properties = new Map<string, Gate>();
  for (const p of policy.propertyPolicies) {
    const gate = gateOf(p.conditions, subject);
    for (const name of p.properties) properties.set(name, bothGates(properties.get(name) ?? true, gate));
  }
  return { object: policy.objectPolicy ? gateOf(policy.objectPolicy.conditions, subject) : true, properties };
}

/** Whether an object (its property values by name) meets a gate: what the SQL form decides in the store. */
export function meetsGate(gate: Gate, object: ReadonlyMap<string, unknown>): boolean {
  if (typeof gate === 'boolean') return gate;
  return gate.every((t) => {
    const value = object.get(t.property);
    return typeof value === 'string' && t.values.includes(value);
  });
}
