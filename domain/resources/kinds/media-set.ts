import { MEDIA_SET_RID_PREFIX } from '../../../schemas/media.ts';
import type { DbOrTrx } from '../../db/index.ts';
import type { ResourceKind, ResourceRecord } from '../kind.ts';

const sets = (db: DbOrTrx) =>
  db
    .selectFrom('media_sets as m')
    .innerJoin('companies as c', 'c.id', 'm.company_id')
    .select(['m.id', 'm.name', 'm.company_id', 'm.created_by', 'c.cell_id']);

const record = (m: { id: string; name: string; company_id: string; created_by: string | null; cell_id: string }): ResourceRecord => ({
  rid: `${MEDIA_SET_RID_PREFIX}${m.id}`,
  kind: 'media-set',
  title: m.name,
  companyId: m.company_id,
  cellId: m.cell_id,
  createdBy: m.created_by,
  floor: 'private',
  parent: null,
});

/** A media set `ri.mio.svc.media-set.<uuid>` (domain/media). */
export const mediaSetKind: ResourceKind = {
  name: 'media-set',
  prefix: MEDIA_SET_RID_PREFIX,
  // Rule 3: the internet tier is for files and apps only.
  anonymousRead: false,
  async find(db, id) {
    const m = await sets(db).where('m.id', '=', id).executeTakeFirst();
    return m && record(m);
  },
  async listOf(db, companyIds) {
    if (companyIds.length === 0) return [];
    return (await sets(db).where('m.company_id', 'in', companyIds).orderBy('m.name').orderBy('m.id').execute()).map(record);
  },
};
