import type { DbOrTrx } from '../../db/index.ts';
import type { ResourceKind, ResourceRecord } from '../kind.ts';

const PREFIX = 'ri.workshop.svc.applications.';

const record = (c: { id: string; cell_id: string; name: string }): ResourceRecord => ({
  rid: `${PREFIX}${c.cell_id}`,
  kind: 'applications',
  title: `Applications of ${c.name}`,
  companyId: c.id,
  cellId: c.cell_id,
  createdBy: null,
  floor: 'private',
  parent: null,
});

const companies = (db: DbOrTrx) => db.selectFrom('companies').select(['id', 'cell_id', 'name']);

/** The organization's applications resource `ri.workshop.svc.applications.<cellId>`: every app of the company inherits from it. */
export const applicationsKind: ResourceKind = {
  name: 'applications',
  prefix: PREFIX,
  anonymousRead: true,
  async find(db, cellId) {
    const c = await companies(db).where('cell_id', '=', cellId).executeTakeFirst();
    return c && record(c);
  },
  async listOf(db, companyIds) {
    if (companyIds.length === 0) return [];
    return (await companies(db).where('id', 'in', companyIds).execute()).map(record);
  },
};

export const applicationsRid = (cellId: string) => `${PREFIX}${cellId}`;
