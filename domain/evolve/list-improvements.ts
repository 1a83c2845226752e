import { sql } from 'kysely';
import type { ImprovementView, ListImprovementsQuery } from '../../schemas/evolve.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { developedApp } from './evolve-app.ts';
import { decodeCursor, encodeCursor, improvementView, selectImprovements } from './repository.ts';

/** One app's improvements, oldest first (the order they apply in), a page at a time. */
export async function listImprovements(
  db: DbOrTrx,
  principal: Principal,
  namespace: string,
  query: ListImprovementsQuery,
): Promise<{ improvements: ImprovementView[]; nextCursor: string | null }> {
  const app = await developedApp(db, principal, namespace, query.slug);
  let select = selectImprovements(db).where('x.app_id', '=', app.id);
  if (query.scope) select = select.where('x.scope', '=', query.scope);
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    select = select.where(sql<boolean>`(x.created_at, x.id) > (${c.at}::timestamptz, ${c.id})`);
  }
  const rows = await select
    .orderBy('x.created_at')
    .orderBy('x.id')
    .limit(query.limit + 1)
    .execute();
  const page = rows.slice(0, query.limit);
  return { improvements: page.map(improvementView), nextCursor: rows.length > query.limit ? encodeCursor(page.at(-1)!) : null };
}
