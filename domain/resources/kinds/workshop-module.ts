import { WORKSHOP_MODULE_RID_PREFIX } from '../../../schemas/workshop.ts';
import type { DbOrTrx } from '../../db/index.ts';
import type { ResourceKind, ResourceRecord } from '../kind.ts';
import { applicationsRid } from './applications.ts';

const modules = (db: DbOrTrx) =>
  db
    .selectFrom('workshop_modules as m')
    .innerJoin('companies as c', 'c.id', 'm.company_id')
    .select(['m.id', 'm.name', 'm.company_id', 'm.created_by', 'c.cell_id']);

const record = (m: { id: string; name: string; company_id: string; created_by: string | null; cell_id: string }): ResourceRecord => ({
  rid: `${WORKSHOP_MODULE_RID_PREFIX}${m.id}`,
  kind: 'workshop-module',
  title: m.name,
  companyId: m.company_id,
  cellId: m.cell_id,
  createdBy: m.created_by,
  // Company-wide access is a Viewer grant to the company (given at creation, revocable): the grants decide the tier.
  floor: 'private',
  parent: applicationsRid(m.cell_id),
});

/** An application module `ri.workshop.svc.module.<uuid>` (domain/workshop); like apps, it inherits from its company's applications resource (rule 4). */
export const workshopModuleKind: ResourceKind = {
  name: 'workshop-module',
  prefix: WORKSHOP_MODULE_RID_PREFIX,
  // No anonymous page renders a module: the internet tier does not apply (rule 3).
  anonymousRead: false,
  async find(db, id) {
    if (!/^[0-9a-f-]{36}$/.test(id)) return undefined;
    const m = await modules(db).where('m.id', '=', id).executeTakeFirst();
    return m && record(m);
  },
  async listOf(db, companyIds) {
    if (companyIds.length === 0) return [];
    return (await modules(db).where('m.company_id', 'in', companyIds).orderBy('m.name').orderBy('m.id').limit(500).execute()).map(record);
  },
};
