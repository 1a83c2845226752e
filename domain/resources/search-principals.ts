import { sql } from 'kysely';
import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';

export interface PrincipalView {
  principal: string;
  kind: 'organization' | 'developers' | 'account';
  label: string;
}

/**
 * Sharing targets (spec D): the caller's organization groups and developer groups (matching `q`
 * when given); accounts only by exact username or email; other organizations only by exact cellId.
 * Nothing else is searchable, so the directory cannot be enumerated.
 */
export async function searchPrincipals(db: DbOrTrx, principal: Principal, q: string | undefined): Promise<PrincipalView[]> {
  const visitor = await visitorOf(db, principal);
  const needle = q?.trim().toLowerCase() ?? '';
  const out: PrincipalView[] = [];
  for (const l of visitor.licenses) {
    const groups: PrincipalView[] = [
      { principal: l.cellId, kind: 'organization', label: `Everyone in ${l.cellId}` },
      { principal: `${l.cellId}:developers`, kind: 'developers', label: `Developers of ${l.cellId}` },
    ];
    out.push(...groups.filter((g) => needle === '' || g.principal.includes(needle) || g.label.toLowerCase().includes(needle)));
  }
  if (needle === '') return out;
  const accounts = await db
    .selectFrom('accounts')
    .select(['id', 'username'])
    .where('status', '!=', 'disabled')
    .where((eb) => eb.or([eb(sql`lower(username)`, '=', needle), eb(sql`lower(email)`, '=', needle)]))
    .execute();
  out.push(...accounts.map((a) => ({ principal: a.id, kind: 'account' as const, label: a.username })));
  const company = await db.selectFrom('companies').select(['cell_id', 'name']).where('cell_id', '=', needle).executeTakeFirst();
  if (company && !visitor.licenses.some((l) => l.cellId === company.cell_id)) {
    out.push({ principal: company.cell_id, kind: 'organization', label: company.name });
  }
  return out;
}
