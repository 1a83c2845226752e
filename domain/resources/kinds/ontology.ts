import { OBJECT_TYPE_RID_PREFIX, ONTOLOGY_RID_PREFIX } from '../../../schemas/ontology.ts';
import type { DbOrTrx } from '../../db/index.ts';
import type { ResourceKind, ResourceRecord } from '../kind.ts';

// The data layer's resources: a company's ontology `ri.ontology.svc.ontology.<cellId>` and its
// object types `ri.ontology.svc.object-type.<id>` (children of the ontology). Private floor, no
// anonymous read; the company's developers are their Owners, and a grant (viewer) lets others
// read the types it covers (domain/ontology/data-access.ts).

const ontologies = (db: DbOrTrx) =>
  db.selectFrom('ontologies as o').innerJoin('companies as c', 'c.id', 'o.company_id').select(['o.company_id', 'c.cell_id', 'c.name']);

const ontologyRecord = (o: { company_id: string; cell_id: string; name: string }): ResourceRecord => ({
  rid: `${ONTOLOGY_RID_PREFIX}${o.cell_id}`,
  kind: 'ontology',
  title: `Ontology of ${o.name}`,
  companyId: o.company_id,
  cellId: o.cell_id,
  createdBy: null,
  floor: 'private',
  parent: null,
});

export const ontologyKind: ResourceKind = {
  name: 'ontology',
  prefix: ONTOLOGY_RID_PREFIX,
  anonymousRead: false,
  async find(db, cellId) {
    const o = await ontologies(db).where('c.cell_id', '=', cellId).executeTakeFirst();
    return o && ontologyRecord(o);
  },
  async listOf(db, companyIds) {
    if (companyIds.length === 0) return [];
    return (await ontologies(db).where('o.company_id', 'in', companyIds).orderBy('c.cell_id').execute()).map(ontologyRecord);
  },
};

const objectTypes = (db: DbOrTrx) =>
  db
    .selectFrom('object_types as t')
    .innerJoin('ontologies as o', 'o.id', 't.ontology_id')
    .innerJoin('companies as c', 'c.id', 'o.company_id')
    .select(['t.id', 't.display_name', 'o.company_id', 'c.cell_id']);

const objectTypeRecord = (t: { id: string; display_name: string; company_id: string; cell_id: string }): ResourceRecord => ({
  rid: `${OBJECT_TYPE_RID_PREFIX}${t.id}`,
  kind: 'object-type',
  title: t.display_name,
  companyId: t.company_id,
  cellId: t.cell_id,
  createdBy: null,
  floor: 'private',
  parent: `${ONTOLOGY_RID_PREFIX}${t.cell_id}`,
});

export const objectTypeKind: ResourceKind = {
  name: 'object-type',
  prefix: OBJECT_TYPE_RID_PREFIX,
  anonymousRead: false,
  async find(db, id) {
    const t = await objectTypes(db).where('t.id', '=', id).executeTakeFirst();
    return t && objectTypeRecord(t);
  },
  async listOf(db, companyIds) {
    if (companyIds.length === 0) return [];
    return (await objectTypes(db).where('o.company_id', 'in', companyIds).orderBy('t.api_name').execute()).map(objectTypeRecord);
  },
};
