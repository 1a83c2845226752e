import { randomUUID } from 'node:crypto';
import { checkRelativePath } from '../../schemas/bundle/index.ts';
import {
  type BranchSelector,
  MEDIA_BRANCH_RID_PREFIX,
  MEDIA_ITEM_RID_PREFIX,
  MEDIA_SET_RID_PREFIX,
  MEDIA_VIEW_RID_PREFIX,
  type MediaItemView,
  type MediaSetView,
} from '../../schemas/media.ts';
import { problem } from '../../schemas/problems.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { callerRoleOn } from '../resources/index.ts';

export const MAIN_BRANCH = 'main';

export const setRid = (id: string) => `${MEDIA_SET_RID_PREFIX}${id}`;
const idOf = (rid: string, prefix: string) => rid.slice(prefix.length);
export const setIdOf = (rid: string) => idOf(rid, MEDIA_SET_RID_PREFIX);

export const setRows = (db: DbOrTrx) =>
  db
    .selectFrom('media_sets as m')
    .innerJoin('companies as c', 'c.id', 'm.company_id')
    .select(['m.id', 'm.name', 'm.schema', 'm.allowed_mime_types', 'm.created_at', 'c.cell_id']);
export type SetRow = Awaited<ReturnType<ReturnType<typeof setRows>['executeTakeFirstOrThrow']>>;

/**
 * The media set a rid names, once the policy lets the caller read it or write to it: no role (or
 * no such set) is media_set_not_found, a Viewer writing is forbidden.
 */
export async function mediaSetFor(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  rid: string,
  action: 'media-set.read' | 'media-set.write',
): Promise<SetRow> {
  authorize(principal, action, { rid, role: await callerRoleOn(deps.db, deps.clock, principal, rid) });
  return setRows(deps.db).where('m.id', '=', setIdOf(rid)).executeTakeFirstOrThrow();
}

export async function setView(db: DbOrTrx, set: SetRow): Promise<MediaSetView> {
  const branches = await db
    .selectFrom('media_set_branches')
    .select(['id', 'name', 'view_id'])
    .where('media_set_id', '=', set.id)
    .orderBy('name')
    .execute();
  return {
    rid: setRid(set.id),
    name: set.name,
    organization: set.cell_id,
    schema: set.schema,
    allowedMimeTypes: set.allowed_mime_types,
    branches: branches.map((b) => ({
      name: b.name,
      rid: `${MEDIA_BRANCH_RID_PREFIX}${b.id}`,
      viewRid: `${MEDIA_VIEW_RID_PREFIX}${b.view_id}`,
    })),
    createdAt: set.created_at.toISOString(),
  };
}

export interface Branch {
  id: string;
  name: string;
}

/** Makes a branch of a set (main at creation, others at their first transaction); an existing one is kept. */
export async function ensureBranch(db: DbOrTrx, setId: string, name: string): Promise<Branch> {
  await db
    .insertInto('media_set_branches')
    .values({ id: randomUUID(), media_set_id: setId, name, view_id: randomUUID() })
    .onConflict((oc) => oc.columns(['media_set_id', 'name']).doNothing())
    .execute();
  return db
    .selectFrom('media_set_branches')
    .select(['id', 'name'])
    .where('media_set_id', '=', setId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
}

/** The one branch a request names (main when it names none); several names at once: conflicting_media_set_identifiers. */
export function selectorName(selector: BranchSelector): { by: 'name' | 'id' | 'view_id'; value: string } {
  const given = (['branchName', 'branchRid', 'viewRid'] as const).filter((k) => selector[k] !== undefined);
  if (given.length > 1) {
    throw new DomainError('conflicting_media_set_identifiers', `Name the branch once: ${given.join(' and ')} were both given.`, {
      details: { given },
    });
  }
  if (selector.branchRid) return { by: 'id', value: idOf(selector.branchRid, MEDIA_BRANCH_RID_PREFIX) };
  if (selector.viewRid) return { by: 'view_id', value: idOf(selector.viewRid, MEDIA_VIEW_RID_PREFIX) };
  return { by: 'name', value: selector.branchName ?? MAIN_BRANCH };
}

export async function branchOf(db: DbOrTrx, setId: string, selector: BranchSelector): Promise<Branch> {
  const { by, value } = selectorName(selector);
  const branch = await db
    .selectFrom('media_set_branches')
    .select(['id', 'name'])
    .where('media_set_id', '=', setId)
    .where(by, '=', value)
    .executeTakeFirst();
  if (!branch) throw new DomainError('branch_not_found', `This media set has no such branch.`, { details: { [by]: value } });
  return branch;
}

/** A path checked like a bundle file's path: missing_media_item_path, media_item_path_invalid with each reason. */
export function checkedPath(raw: string | undefined): string {
  if (raw === undefined || raw === '') throw new DomainError('missing_media_item_path', 'Give the item’s path (query mediaItemPath).');
  const checked = checkRelativePath(raw);
  if (!checked.ok) {
    throw new DomainError('media_item_path_invalid', `The item path is not a safe relative path.`, {
      details: { problems: checked.rejections.map((r) => problem('query.mediaItemPath', r.code, r.message)) },
    });
  }
  return checked.path;
}

export const itemRows = (db: DbOrTrx) =>
  db
    .selectFrom('media_items as i')
    .innerJoin('media_set_branches as b', 'b.id', 'i.branch_id')
    .select([
      'i.id',
      'i.path',
      'i.sha256',
      'i.size',
      'i.mime_type',
      'i.transaction_id',
      'i.created_at',
      'b.name as branch_name',
      'b.media_set_id',
    ]);
export type ItemRow = Awaited<ReturnType<ReturnType<typeof itemRows>['executeTakeFirstOrThrow']>>;

export const itemRid = (id: string) => `${MEDIA_ITEM_RID_PREFIX}${id}`;
export const itemIdOf = (rid: string) => idOf(rid, MEDIA_ITEM_RID_PREFIX);

/** A committed item of the set by its rid (media_item_not_found otherwise: staged items are not visible yet). */
export async function visibleItem(db: DbOrTrx, set: SetRow, rid: string): Promise<ItemRow> {
  const item = await itemRows(db)
    .where('i.id', '=', itemIdOf(rid))
    .where('b.media_set_id', '=', set.id)
    .where('i.visible', '=', true)
    .executeTakeFirst();
  if (!item) throw new DomainError('media_item_not_found', `No media item ${rid} in this media set.`, { details: { mediaItemRid: rid } });
  return item;
}

export const itemView = (set: SetRow, i: ItemRow): MediaItemView => ({
  mediaItemRid: itemRid(i.id),
  mediaSetRid: setRid(set.id),
  path: i.path,
  branchName: i.branch_name,
  mimeType: i.mime_type,
  sizeBytes: i.size,
  sha256: i.sha256.toString('hex'),
  transactionId: i.transaction_id,
  createdAt: i.created_at.toISOString(),
});
