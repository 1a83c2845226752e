import type { ObjectSecurityPolicy, ObjectTypeSecurity, SecurityCondition } from '../../schemas/object-security.ts';
import { DomainError } from '../errors.ts';
import { markingNotFound, markingRows } from '../markings/index.ts';
import type { Principal } from '../principal.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import type { DataDeps } from './data-access.ts';
import type { ObjectTypeRecord } from './repository.ts';
import { typeToSecure } from './type-to-secure.ts';

const invalid = (errorName: string, path: string, message: string) =>
  new DomainError('definition_invalid', message, { details: { errorName, problems: [{ path, code: errorName, message }] } });

/** A comparison needs a string property of the type; a property policy never names the primary key (it names the object). */
function checkPolicy(type: ObjectTypeRecord, policy: ObjectSecurityPolicy): void {
  const checkConditions = (conditions: readonly SecurityCondition[], at: string) =>
    conditions.forEach((c, i) => {
      if (c.type === 'userAttribute' && type.properties[c.property]?.dataType.type !== 'string') {
        throw invalid('PropertyNotComparable', `${at}.conditions.${i}.property`, `${type.apiName} has no string property ${c.property}.`);
      }
    });
  if (policy.objectPolicy) checkConditions(policy.objectPolicy.conditions, 'objectPolicy');
  policy.propertyPolicies.forEach((p, i) => {
    checkConditions(p.conditions, `propertyPolicies.${i}`);
    p.properties.forEach((name, j) => {
      if (!type.properties[name] || name === type.primaryKey) {
        throw invalid(
          'PropertyNotSecurable',
          `propertyPolicies.${i}.properties.${j}`,
          name === type.primaryKey ? `${name} is the primary key: hide the object instead.` : `${type.apiName} has no property ${name}.`,
        );
      }
    });
  });
}

const markingIdsOf = (policy: ObjectSecurityPolicy) =>
  new Set(
    [...(policy.objectPolicy?.conditions ?? []), ...policy.propertyPolicies.flatMap((p) => p.conditions)].flatMap((c) =>
      c.type === 'marking' ? [c.markingId] : [],
    ),
  );

/**
 * `PUT …/objectTypes/{type}/security`: replaces the type's policies (developers of the company).
 * Markings must be the company's own (marking_not_found). Takes effect for every read that starts
 * after it commits; recorded in the security event log.
 */
export async function setObjectTypeSecurity(
  deps: DataDeps,
  principal: Principal,
  input: { ontology: string; objectType: string; policy: ObjectSecurityPolicy; ip?: string | undefined },
): Promise<ObjectTypeSecurity> {
  const { open, type } = await typeToSecure(deps, principal, input.ontology, input.objectType);
  checkPolicy(type, input.policy);
  const ids = [...markingIdsOf(input.policy)];
  if (ids.length > 0) {
    const found = new Set(
      (await markingRows(deps.db).where('m.id', 'in', ids).where('k.company_id', '=', open.ontology.companyId).execute()).map((m) => m.id),
    );
    const missing = ids.find((id) => !found.has(id));
    if (missing) throw markingNotFound(missing);
  }
  const values = { policy: JSON.stringify(input.policy), updated_by: principal.account.id, updated_at: deps.clock.now() };
  await deps.db
    .insertInto('object_type_security')
    .values({ object_type_id: type.id, ...values })
    .onConflict((c) => c.column('object_type_id').doUpdateSet(values))
    .execute();
  await recordSecurityEvent(deps.db, {
    kind: 'object_security_policy_set',
    accountId: null,
    actorId: principal.account.id,
    ip: input.ip,
    details: { objectTypeRid: type.rid, objectType: type.apiName },
  });
  return { objectType: type.apiName, policy: input.policy, updatedAt: values.updated_at.toISOString() };
}
