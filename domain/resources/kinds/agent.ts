import type { DbOrTrx } from '../../db/index.ts';
import type { ResourceKind, ResourceRecord } from '../kind.ts';

const PREFIX = 'ri.agents.svc.agent.';

export const agentRid = (id: string) => `${PREFIX}${id}`;

const profiles = (db: DbOrTrx) =>
  db
    .selectFrom('agent_profiles as p')
    .innerJoin('companies as c', 'c.id', 'p.company_id')
    .select(['p.id', 'p.name', 'p.company_id', 'c.cell_id']);

const record = (p: { id: string; name: string; company_id: string; cell_id: string }): ResourceRecord => ({
  rid: agentRid(p.id),
  kind: 'agent',
  title: p.name,
  companyId: p.company_id,
  cellId: p.cell_id,
  // Written by company initialization (an operator's run), so no account created it: the
  // company's developers are its Owners.
  createdBy: null,
  // Profiles have no visibility setting of their own yet: nothing narrows them.
  floor: 'private',
  parent: null,
});

/** An agent profile `ri.agents.svc.agent.<id>` (company initialization writes ten per company). */
export const agentKind: ResourceKind = {
  name: 'agent',
  prefix: PREFIX,
  // Rule 3: the internet tier is for files and apps only.
  anonymousRead: false,
  async find(db, id) {
    const p = await profiles(db).where('p.id', '=', id).executeTakeFirst();
    return p && record(p);
  },
  async listOf(db, companyIds) {
    if (companyIds.length === 0) return [];
    return (await profiles(db).where('p.company_id', 'in', companyIds).orderBy('p.name').execute()).map(record);
  },
};
