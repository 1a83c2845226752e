import type { DbOrTrx } from '../db/index.ts';

/** Removes what the access model holds on a resource that is being deleted: its grants, markings and invitation links. */
export async function forgetResource(db: DbOrTrx, rid: string): Promise<void> {
  await db.deleteFrom('resource_grants').where('rid', '=', rid).execute();
  await db.deleteFrom('resource_markings').where('rid', '=', rid).execute();
  await db.deleteFrom('resource_links').where('rid', '=', rid).execute();
}
