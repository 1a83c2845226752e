import type { GroupView } from '../../schemas/groups.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { groupToManage, groupView } from './repository.ts';

export async function getGroup(db: DbOrTrx, principal: Principal, id: string): Promise<GroupView> {
  return groupView(await groupToManage(db, principal, id));
}
