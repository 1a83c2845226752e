import type { DbOrTrx, ResourceRole } from '../db/index.ts';
import type { Visitor } from '../policy/index.ts';
import { appRid } from './kinds/app.ts';
import { applicationsRid } from './kinds/applications.ts';
import { principalsOf } from './principals.ts';
import { higherRole } from './repository.ts';

/**
 * The highest role the visitor's grants give on an app's resource or, inherited, on its company's
 * applications resource (rule 4); null when none. The implicit Owners (company developers) are
 * the access function's own rule, so they are not counted here.
 */
export async function appGrantRole(db: DbOrTrx, visitor: Visitor, app: { namespace: string; slug: string; companyId: string | null }) {
  const rids = [appRid(app.namespace, app.slug), ...(app.companyId ? [applicationsRid(app.namespace)] : [])];
  const rows = await db
    .selectFrom('resource_grants')
    .select('role')
    .where('rid', 'in', rids)
    .where('principal', 'in', principalsOf(visitor))
    .execute();
  return rows.reduce<ResourceRole | null>((best, r) => higherRole(best, r.role), null);
}
