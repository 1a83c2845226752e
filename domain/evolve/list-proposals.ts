import { sql } from 'kysely';
import type { ListProposalsQuery, ProposalView } from '../../schemas/evolve.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { developedApp } from './evolve-app.ts';
import { decodeCursor, encodeCursor, proposalView, selectProposals } from './repository.ts';

/** One app's proposals, newest first, a page at a time (developers of the namespace). */
export async function listProposals(
  db: DbOrTrx,
  principal: Principal,
  namespace: string,
  query: ListProposalsQuery,
): Promise<{ proposals: ProposalView[]; nextCursor: string | null }> {
  const app = await developedApp(db, principal, namespace, query.slug);
  let select = selectProposals(db).where('x.app_id', '=', app.id);
  if (query.status) select = select.where('x.status', '=', query.status);
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    select = select.where(sql<boolean>`(x.created_at, x.id) < (${c.at}::timestamptz, ${c.id})`);
  }
  const rows = await select
    .orderBy('x.created_at', 'desc')
    .orderBy('x.id', 'desc')
    .limit(query.limit + 1)
    .execute();
  const page = rows.slice(0, query.limit);
  return { proposals: page.map(proposalView), nextCursor: rows.length > query.limit ? encodeCursor(page.at(-1)!) : null };
}
