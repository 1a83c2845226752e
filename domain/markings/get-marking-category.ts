import type { MarkingCategoryView } from '../../schemas/markings.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { categoryToRead, categoryView } from './repository.ts';

export async function getMarkingCategory(db: DbOrTrx, principal: Principal, id: string): Promise<MarkingCategoryView> {
  return categoryView(db, await categoryToRead(db, principal, id));
}
