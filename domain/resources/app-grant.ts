import type { DbOrTrx } from '../db/index.ts';
import type { ResourceGrant, Visitor } from '../policy/index.ts';
import { appRid } from './kinds/app.ts';
import { applicationsRid } from './kinds/applications.ts';
import { principalsOf } from './principals.ts';
import { higherRole } from './repository.ts';

type AppRef = { namespace: string; slug: string; companyId: string | null };

/** The app's resource and, for a company's app, its company's applications resource it inherits from (rule 4). */
export const appRids = (app: AppRef) => [appRid(app.namespace, app.slug), ...(app.companyId ? [applicationsRid(app.namespace)] : [])];

/** The grant with the highest role these principals hold on an app's resource or, inherited, on its company's applications resource (rule 4). */
async function grantOn(db: DbOrTrx, principals: readonly string[], app: AppRef): Promise<ResourceGrant | null> {
  const rids = appRids(app);
  const rows = await db
    .selectFrom('resource_grants')
    .select(['rid', 'principal', 'role'])
    .where('rid', 'in', rids)
    .where('principal', 'in', principals)
    .execute();
  return rows.reduce<ResourceGrant | null>((best, r) => (best && higherRole(best.role, r.role) === best.role ? best : r), null);
}

/**
 * The visitor's grant with the highest role on an app's resource or its company's applications
 * resource; null when none. The implicit Owners (company developers) are the access function's own
 * rule, so they are not counted here. A ticket opened through it records it (its rid and
 * principal), so it ends with that grant.
 */
export const appGrantOf = (db: DbOrTrx, visitor: Visitor, app: AppRef) => grantOn(db, principalsOf(visitor), app);

/** Whether the app is at the internet tier: `internet` holds a grant on it or on its company's applications resource. */
export const isInternetTier = async (db: DbOrTrx, app: AppRef) => (await grantOn(db, ['internet'], app)) !== null;
