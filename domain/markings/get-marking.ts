import type { MarkingView } from '../../schemas/markings.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { markingToRead, markingView } from './repository.ts';

export async function getMarking(db: DbOrTrx, principal: Principal, id: string): Promise<MarkingView> {
  return markingView(await markingToRead(db, principal, id));
}
