import { sql } from 'kysely';
import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { can, type Visitor } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

export interface PrincipalView {
  principal: string;
  kind: 'organization' | 'developers' | 'group' | 'account';
  label: string;
}

/** The groups of these companies whose name contains the needle (case-insensitive), the first GROUPS_SHOWN by name. */
async function groupsNamed(db: DbOrTrx, licenses: Visitor['licenses'], needle: string): Promise<PrincipalView[]> {
  if (licenses.length === 0) return [];
  const pattern = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await db
    .selectFrom('groups as g')
    .innerJoin('companies as c', 'c.id', 'g.company_id')
    .select(['g.id', 'g.name', 'c.cell_id'])
    .where(
      'g.company_id',
      'in',
      licenses.map((l) => l.companyId),
    )
    .where(sql<string>`lower(g.name)`, 'like', pattern)
    .orderBy(sql`lower(g.name)`)
    .limit(GROUPS_SHOWN)
    .execute();
  return rows.map((g) => ({ principal: g.id, kind: 'group' as const, label: `${g.name} (${g.cell_id})` }));
}

const GROUPS_SHOWN = 50;

/**
 * Sharing targets (spec D): the caller's organization groups, developer groups and groups (matching `q`
 * when given); accounts only by exact username or email, and only those the policy lets the
 * caller find (`account.find`: people related to the caller's companies; any account for
 * developers); other organizations only by exact cellId. Nothing else is searchable, so the
 * directory cannot be enumerated, and a member learns nothing of unrelated people.
 */
export async function searchPrincipals(db: DbOrTrx, clock: Clock, principal: Principal, q: string | undefined): Promise<PrincipalView[]> {
  const visitor = await visitorOf(db, principal, clock.now());
  const needle = q?.trim().toLowerCase() ?? '';
  const out: PrincipalView[] = [];
  for (const l of visitor.licenses) {
    const groups: PrincipalView[] = [
      { principal: l.cellId, kind: 'organization', label: `Everyone in ${l.cellId}` },
      { principal: `${l.cellId}:developers`, kind: 'developers', label: `Developers of ${l.cellId}` },
    ];
    out.push(...groups.filter((g) => needle === '' || g.principal.includes(needle) || g.label.toLowerCase().includes(needle)));
  }
  out.push(...(await groupsNamed(db, visitor.licenses, needle)));
  if (needle === '') return out;
  const companies = visitor.licenses.map((l) => l.companyId);
  const accounts = await db
    .selectFrom('accounts as a')
    .select((eb) => [
      'a.id',
      'a.username',
      eb
        .or([
          eb('a.id', '=', visitor.accountId),
          ...(companies.length === 0
            ? []
            : [
                eb.exists(eb.selectFrom('licenses as l').whereRef('l.account_id', '=', 'a.id').where('l.company_id', 'in', companies)),
                eb.exists(
                  eb
                    .selectFrom('app_shares as s')
                    .innerJoin('apps as p', 'p.id', 's.app_id')
                    .whereRef('s.account_id', '=', 'a.id')
                    .where('s.revoked_at', 'is', null)
                    .where((w) => w.or([w('s.expires_at', 'is', null), w('s.expires_at', '>', sql<Date>`now()`)]))
                    .where('p.company_id', 'in', companies),
                ),
                eb.exists(
                  eb
                    .selectFrom('resource_grants as g')
                    .innerJoin('licenses as by', 'by.account_id', 'g.created_by')
                    .whereRef('g.principal', '=', 'a.id')
                    .where('by.company_id', 'in', companies),
                ),
              ]),
        ])
        .as('related'),
    ])
    .where('a.status', '!=', 'disabled')
    .where((eb) => eb.or([eb(sql`lower(a.username)`, '=', needle), eb(sql`lower(a.email)`, '=', needle)]))
    .execute();
  out.push(
    ...accounts
      .filter((a) => can(principal, 'account.find', { related: a.related === true }))
      .map((a) => ({ principal: a.id, kind: 'account' as const, label: a.username })),
  );
  const company = await db.selectFrom('companies').select(['cell_id', 'name']).where('cell_id', '=', needle).executeTakeFirst();
  if (company && !visitor.licenses.some((l) => l.cellId === company.cell_id)) {
    out.push({ principal: company.cell_id, kind: 'organization', label: company.name });
  }
  return out;
}
