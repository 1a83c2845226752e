import type { MediaSetView } from '../../schemas/media.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { mediaSetFor, setView } from './repository.ts';

/** A media set and its branches: any role on it (media_set_not_found otherwise). */
export async function getMediaSet(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, rid: string): Promise<MediaSetView> {
  return setView(deps.db, await mediaSetFor(deps, principal, rid, 'media-set.read'));
}
