import type { GroupView } from '../../schemas/groups.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { companyNamed, companyToManage, groupRows, groupView } from './repository.ts';

/** Escapes LIKE's wildcards so a prefix is matched literally. */
const likePrefix = (prefix: string) => `${prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A company's groups by name (case-insensitive), optionally only those whose name starts with
 * `prefix`; a page at a time, continuing after the previous page's last group.
 */
export async function listGroups(
  db: DbOrTrx,
  principal: Principal,
  input: { organization?: string | undefined; prefix?: string | undefined; pageSize: number; pageToken?: string | undefined },
): Promise<{ data: GroupView[]; nextPageToken: string | null }> {
  const company = await companyToManage(db, principal, companyNamed(principal, input.organization));
  let q = groupRows(db).where('g.company_id', '=', company.id);
  if (input.prefix) q = q.where((eb) => eb(eb.fn('lower', ['g.name']), 'like', likePrefix(input.prefix!)));
  if (input.pageToken) q = q.where((eb) => eb(eb.fn('lower', ['g.name']), '>', input.pageToken!.toLowerCase()));
  const rows = await q
    .orderBy((eb) => eb.fn('lower', ['g.name']))
    .limit(input.pageSize + 1)
    .execute();
  const page = rows.slice(0, input.pageSize);
  return {
    data: page.map(groupView),
    nextPageToken: rows.length > input.pageSize ? page[page.length - 1]!.name.toLowerCase() : null,
  };
}
