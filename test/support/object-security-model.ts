import type { ObjectSecurityPolicy, SecurityCondition } from '../../schemas/object-security.ts';

// The security policies' rules applied in memory, written apart from domain/policy and its SQL
// form so the tests that compare with it (test/api/ontology/object-security.test.ts,
// test/domain/ontology/object-security.property.test.ts) can catch either being wrong.

/** Whom the model judges: the markings it is cleared for and its user attributes (a Map: `constructor` is a name). */
export interface ModelPrincipal {
  markings: ReadonlySet<string>;
  attributes: ReadonlyMap<string, readonly string[]>;
}

const holds = (c: SecurityCondition, who: ModelPrincipal, object: Readonly<Record<string, unknown>>) => {
  if (c.type === 'marking') return who.markings.has(c.markingId);
  const value = object[c.property];
  return typeof value === 'string' && (who.attributes.get(c.attribute) ?? []).includes(value);
};

/**
 * The object as the principal reads it: null when it fails the object policy, each property of a
 * failed property policy null. Every condition is judged on the stored object, not on what a
 * property policy nulls.
 */
export function modelRead<T extends Record<string, unknown>>(policy: ObjectSecurityPolicy, who: ModelPrincipal, object: T): T | null {
  if (policy.objectPolicy && !policy.objectPolicy.conditions.every((c) => holds(c, who, object))) return null;
  const out: Record<string, unknown> = { ...object };
  for (const p of policy.propertyPolicies) {
    if (!p.conditions.every((c) => holds(c, who, object))) for (const name of p.properties) out[name] = null;
  }
  return out as T;
}
