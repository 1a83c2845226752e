import type { SecurityCondition, SecurityTestRequest, SecurityTestResult } from '../../schemas/object-security.ts';
import { getUser, policyAttributesOf } from '../accounts/index.ts';
import { clearanceOf } from '../markings/index.ts';
import { attributeMap, judgeCondition, meetsGate, type PolicySubject } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import type { DataDeps } from './data-access.ts';
import { EMPTY_POLICY, typeToSecure } from './type-to-secure.ts';

// `POST …/objectTypes/{type}/security/test`: what one principal would read of one sample object,
// and why, judged by the same rules (domain/policy object-security.ts) the reads push into SQL.
// Reasons never echo attribute values (they are untrusted and may be large): a count says enough.

type Outcome = SecurityTestResult['objectPolicy'][number];

function outcome(c: SecurityCondition, subject: PolicySubject, object: ReadonlyMap<string, unknown>): Outcome {
  if (c.type === 'marking') {
    const passed = judgeCondition(c, subject) === true;
    return { condition: c, passed, reason: `${passed ? 'Holds' : 'Holds no'} role on marking ${c.markingId}.` };
  }
  const term = judgeCondition(c, subject);
  const values = typeof term === 'boolean' ? [] : term.values;
  if (values.length === 0) return { condition: c, passed: false, reason: `The user has no usable value of attribute ${c.attribute}.` };
  const passed = meetsGate([{ property: c.property, values }], object);
  const compared = typeof object.get(c.property) === 'string' ? 'equals none' : 'is not a string, so matches none';
  return {
    condition: c,
    passed,
    reason: passed
      ? `${c.property} equals one of the user's ${values.length} value(s) of ${c.attribute}.`
      : `${c.property} ${compared} of the user's ${values.length} value(s) of ${c.attribute}.`,
  };
}

/** The principal tested: a user the caller may see (default: itself), with the request's what-if attributes and markings. */
async function subjectOf(deps: DataDeps, principal: Principal, companyId: string, request: SecurityTestRequest): Promise<PolicySubject> {
  const userId = request.userId ?? principal.account.id;
  // user_not_found for anyone outside the caller's people (as GET /admin/users/{id}).
  if (userId !== principal.account.id) await getUser(deps.db, principal, userId);
  return {
    clearance: request.markingIds
      ? new Map(request.markingIds.map((id) => [id, 'use' as const]))
      : await clearanceOf(deps, userId, deps.clock.now()),
    attributes: attributeMap(request.attributes ?? (await policyAttributesOf(deps.db, userId, companyId))),
  };
}

export async function testObjectSecurity(
  deps: DataDeps,
  principal: Principal,
  input: { ontology: string; objectType: string; request: SecurityTestRequest },
): Promise<SecurityTestResult> {
  const { open, type } = await typeToSecure(deps, principal, input.ontology, input.objectType);
  const policy = type.security ?? EMPTY_POLICY;
  const subject = await subjectOf(deps, principal, open.ontology.companyId, input.request);
  const object = new Map(Object.entries(input.request.object));
  const objectPolicy = (policy.objectPolicy?.conditions ?? []).map((c) => outcome(c, subject, object));
  const propertyPolicies = policy.propertyPolicies.map((p) => {
    const conditions = p.conditions.map((c) => outcome(c, subject, object));
    return { properties: p.properties, passed: conditions.every((c) => c.passed), conditions };
  });
  const visible = objectPolicy.every((c) => c.passed);
  const nulled = new Set(propertyPolicies.filter((p) => !p.passed).flatMap((p) => p.properties));
  return {
    visible,
    object: visible ? Object.fromEntries([...object].filter(([name]) => !nulled.has(name))) : null,
    nulledProperties: [...nulled].sort(),
    objectPolicy,
    propertyPolicies,
  };
}
