import type { DbOrTrx } from '../db/database.ts';
import type { ResourceGrant, Visitor } from '../policy/index.ts';
import { appRid } from './kinds/app.ts';
import { applicationsRid } from './kinds/applications.ts';
import { principalsOf } from './principals.ts';
import { higherRole } from './repository.ts';

/**
 * The visitor's grant with the highest role on an app's resource or, inherited, on its company's
 * applications resource (rule 4); null when none. The implicit Owners (company developers) are
 * the access function's own rule, so they are not counted here. A ticket opened through it
 * records it (its rid and principal), so it ends with that grant.
 */
export async function appGrantOf(
  db: DbOrTrx,
  visitor: Visitor,
  app: { namespace: string; slug: string; companyId: string | null },
): Promise<ResourceGrant | null> {
  const rids = [appRid(app.namespace, app.slug), ...(app.companyId ? [applicationsRid(app.namespace)] : [])];
  const rows = await db
    .selectFrom('resource_grants')
    .select(['rid', 'principal', 'role'])
    .where('rid', 'in', rids)
    .where('principal', 'in', principalsOf(visitor))
    .execute();
  return rows.reduce<ResourceGrant | null>((best, r) => (best && higherRole(best.role, r.role) === best.role ? best : r), null);
}
