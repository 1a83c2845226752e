import type { DbOrTrx, ResourceRole } from '../db/index.ts';
import type { Visitor } from '../policy/index.ts';
import { appRid } from './kinds/app.ts';
import { applicationsRid } from './kinds/applications.ts';
import { principalsOf } from './principals.ts';
import { higherRole } from './repository.ts';

type AppRef = { namespace: string; slug: string; companyId: string | null };

/** The highest role these principals' grants give on an app's resource or, inherited, on its company's applications resource (rule 4). */
async function grantRoleOn(db: DbOrTrx, principals: readonly string[], app: AppRef) {
  const rids = [appRid(app.namespace, app.slug), ...(app.companyId ? [applicationsRid(app.namespace)] : [])];
  const rows = await db
    .selectFrom('resource_grants')
    .select('role')
    .where('rid', 'in', rids)
    .where('principal', 'in', principals)
    .execute();
  return rows.reduce<ResourceRole | null>((best, r) => higherRole(best, r.role), null);
}

/**
 * The highest role the visitor's grants give on an app's resource or its company's applications
 * resource; null when none. The implicit Owners (company developers) are the access function's own
 * rule, so they are not counted here.
 */
export const appGrantRole = (db: DbOrTrx, visitor: Visitor, app: AppRef) => grantRoleOn(db, principalsOf(visitor), app);

/** Whether the app is at the internet tier: `internet` holds a grant on it or on its company's applications resource. */
export const isInternetTier = async (db: DbOrTrx, app: AppRef) => (await grantRoleOn(db, ['internet'], app)) !== null;
