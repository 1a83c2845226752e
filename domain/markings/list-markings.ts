import { sql } from 'kysely';
import type { MarkingView } from '../../schemas/markings.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { companyToRead, markingRows, markingView } from './repository.ts';

/** A company's markings (optionally one category's) by name and id, a page at a time. */
export async function listMarkings(
  db: DbOrTrx,
  principal: Principal,
  input: { organization?: string | undefined; categoryId?: string | undefined; pageSize: number; pageToken?: string | undefined },
): Promise<{ data: MarkingView[]; nextPageToken: string | null }> {
  const company = await companyToRead(db, principal, input.organization);
  let q = markingRows(db).where('k.company_id', '=', company.id);
  if (input.categoryId) q = q.where('m.category_id', '=', input.categoryId);
  // Names repeat across categories: the id breaks ties; the token is the last marking's id (an unknown one ends the list).
  if (input.pageToken) {
    q = q.where(sql<boolean>`(lower(m.name), m.id) > (SELECT lower(p.name), p.id FROM markings p WHERE p.id = ${input.pageToken})`);
  }
  const rows = await q
    .orderBy(sql`lower(m.name)`)
    .orderBy('m.id')
    .limit(input.pageSize + 1)
    .execute();
  const page = rows.slice(0, input.pageSize);
  const last = page[page.length - 1];
  return {
    data: page.map(markingView),
    nextPageToken: rows.length > input.pageSize && last ? last.id : null,
  };
}
