import { sql } from 'kysely';
import type { MarkingCategoryView } from '../../schemas/markings.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { categoryRows, categoryView, companyToRead } from './repository.ts';

/** A company's marking categories by name, a page at a time (continuing after the previous page's last name). */
export async function listMarkingCategories(
  db: DbOrTrx,
  principal: Principal,
  input: { organization?: string | undefined; pageSize: number; pageToken?: string | undefined },
): Promise<{ data: MarkingCategoryView[]; nextPageToken: string | null }> {
  const company = await companyToRead(db, principal, input.organization);
  let q = categoryRows(db).where('k.company_id', '=', company.id);
  if (input.pageToken) q = q.where(sql`lower(k.name)`, '>', input.pageToken.toLowerCase());
  const rows = await q
    .orderBy(sql`lower(k.name)`)
    .limit(input.pageSize + 1)
    .execute();
  const page = rows.slice(0, input.pageSize);
  return {
    data: await Promise.all(page.map((k) => categoryView(db, k))),
    nextPageToken: rows.length > input.pageSize ? page[page.length - 1]!.name.toLowerCase() : null,
  };
}
