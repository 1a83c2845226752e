import type { ObjectTypeSecurity } from '../../schemas/object-security.ts';
import type { Principal } from '../principal.ts';
import type { DataDeps } from './data-access.ts';
import { EMPTY_POLICY, typeToSecure } from './type-to-secure.ts';

/** `GET …/objectTypes/{type}/security`: the type's policies (none set: the empty policy). */
export async function getObjectTypeSecurity(
  deps: DataDeps,
  principal: Principal,
  input: { ontology: string; objectType: string },
): Promise<ObjectTypeSecurity> {
  const { type } = await typeToSecure(deps, principal, input.ontology, input.objectType);
  const row = await deps.db
    .selectFrom('object_type_security')
    .select('updated_at')
    .where('object_type_id', '=', type.id)
    .executeTakeFirst();
  return { objectType: type.apiName, policy: type.security ?? EMPTY_POLICY, updatedAt: row?.updated_at.toISOString() ?? null };
}
